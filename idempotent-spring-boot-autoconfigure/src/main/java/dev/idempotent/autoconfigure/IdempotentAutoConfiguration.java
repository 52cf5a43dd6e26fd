package dev.idempotent.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.idempotent.actuate.IdempotencyHealthCheck;
import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.capture.Replies;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.ConflictLog;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.HitLog;
import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.claim.LeasedClaimStore;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.GaleraDriverCheck;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.JdbcLeasedClaimStore;
import dev.idempotent.jdbc.JdbcOffsetStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.error.DeadLetterTemplates;
import dev.idempotent.kafka.error.ErrorHandlerClassifier;
import dev.idempotent.kafka.error.IdempotentErrorHandlers;
import dev.idempotent.kafka.error.RetryTopicComponents;
import dev.idempotent.kafka.error.TransientAwareBackOff;
import dev.idempotent.kafka.listener.IdempotentListenerPostProcessor;
import dev.idempotent.kafka.method.ListenerMethods;
import dev.idempotent.kafka.reply.ListenerReplies;
import dev.idempotent.kafka.reply.ReplyFailureInstaller;
import dev.idempotent.kafka.startup.ContainerFactoryGuard;
import dev.idempotent.kafka.startup.IdempotentListenerVerifier;
import dev.idempotent.kafka.method.ListenerScopes;
import dev.idempotent.kafka.offset.StoredOffsets;
import dev.idempotent.kafka.support.CurrentRecordInstaller;
import dev.idempotent.key.KeyValidator;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.metrics.CompositeClaimListener;
import dev.idempotent.observation.ClaimObserver;
import dev.idempotent.retention.LateRecordGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.retrytopic.RetryTopicComponentFactory;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationSupport;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;
import org.springframework.util.function.SingletonSupplier;

/**
 * Auto-configuration of {@link dev.idempotent.kafka.IdempotentListener}: the JDBC claim store on the
 * application's {@link DataSource} (its table created on request after Flyway/Liquibase, then checked), the
 * transactional executor on its transaction manager, the advice around
 * listener methods, capture of the current record on every listener container factory, and, when the
 * application has none, an error handler that retries and then dead-letters (bad keys and, with retention, late
 * records at once), and its counterpart for containers with a Kafka transaction manager (an after-rollback
 * processor); {@link ContainerFactoryGuard} gives them to the container factories the application builds itself.
 * Every bean steps aside for one the application defines.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(afterName = { BootAutoConfigurations.DATA_SOURCE_3, BootAutoConfigurations.DATA_SOURCE_4,
		BootAutoConfigurations.TRANSACTION_MANAGER_3, BootAutoConfigurations.TRANSACTION_MANAGER_4,
		BootAutoConfigurations.KAFKA_3, BootAutoConfigurations.KAFKA_4 })
@ConditionalOnClass({ EnableKafka.class, JdbcTemplate.class })
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties({ IdempotentProperties.class, IdempotentForensicsProperties.class,
		IdempotentOutputsProperties.class, IdempotentOffsetsProperties.class })
@Import(DatabaseInitializationDependencyConfigurer.class)
public class IdempotentAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(IdempotentAutoConfiguration.class);

	private static final String OFFSETS_ENABLED = "idempotent.offsets.enabled";

	@Bean
	@ConditionalOnMissingBean
	SqlDialect idempotentSqlDialect(DataSource dataSource, IdempotentProperties properties) {
		String dialect = properties.getJdbc().getDialect();
		return (dialect != null) ? SqlDialect.fromId(dialect) : SqlDialect.detect(dataSource);
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotentSchemaInitialization idempotentSchemaInitialization(DataSource dataSource, SqlDialect dialect,
			IdempotentProperties properties, ObjectProvider<IdempotentRetentionProperties> retention,
			IdempotentOutputsProperties outputs, IdempotentOffsetsProperties offsets) {
		List<SchemaInitializer> initializers = new ArrayList<>();
		initializers.add(new SchemaInitializer(dataSource, table(properties), dialect));
		if (outputs.isEnabled()) {
			initializers.add(SchemaInitializer.outputs(dataSource, outputs.table(table(properties)), dialect));
		}
		if (offsets.isEnabled()) {
			initializers.add(SchemaInitializer.offsets(dataSource, offsets.table(table(properties)), dialect));
		}
		TableName archive = IdempotentRetentionAutoConfiguration.archiveTable(properties, retention.getIfAvailable());
		if (archive != null) {
			initializers.add(SchemaInitializer.archive(dataSource, archive, dialect));
		}
		return new IdempotentSchemaInitialization(dataSource, initializers, properties.getJdbc().getInitializeSchema());
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	IdempotentSchemaValidation idempotentSchemaValidation(DataSource dataSource, SqlDialect dialect,
			IdempotentProperties properties, IdempotentForensicsProperties forensics,
			ObjectProvider<IdempotentRetentionProperties> retention, IdempotentOutputsProperties outputs,
			IdempotentOffsetsProperties offsets) {
		SchemaValidator validator = new SchemaValidator(dataSource, table(properties), dialect,
				properties.getMaxKeyLength(), forensics.getFingerprint().isEnabled());
		if (outputs.isEnabled()) {
			validator = validator.withOutputs(outputs.table(table(properties)));
		}
		if (offsets.isEnabled()) {
			validator = validator.withOffsets(offsets.table(table(properties)));
		}
		TableName archive = IdempotentRetentionAutoConfiguration.archiveTable(properties, retention.getIfAvailable());
		return new IdempotentSchemaValidation((archive != null) ? validator.withArchive(archive) : validator,
				properties.getJdbc().getSchemaValidation());
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotentDriverCheck idempotentDriverCheck(DataSource dataSource, SqlDialect dialect) {
		return new IdempotentDriverCheck(new GaleraDriverCheck(dataSource, dialect));
	}

	/**
	 * What the {@code idempotency} health contributor reports (each starter adapts it to its Boot generation): checked
	 * with the startup check's validator when there is one, which knows the fingerprint column and the archive table.
	 */
	@Bean
	@ConditionalOnMissingBean
	IdempotencyHealthCheck idempotencyHealthCheck(DataSource dataSource, ClaimInspector inspector,
			IdempotentProperties properties, ObjectProvider<IdempotentSchemaValidation> startupCheck) {
		IdempotentSchemaValidation validation = startupCheck.getIfAvailable();
		SchemaValidator validator = (validation != null) ? validation.validator()
				: new SchemaValidator(dataSource, inspector.getTable(), inspector.getDialect(),
						properties.getMaxKeyLength());
		return new IdempotencyHealthCheck(inspector, validator);
	}

	@Bean
	@ConditionalOnMissingBean
	ClaimInspector idempotentClaimInspector(DataSource dataSource, SqlDialect dialect, IdempotentProperties properties) {
		return new ClaimInspector(dataSource, table(properties), dialect);
	}

	@Bean
	@ConditionalOnMissingBean(ClaimStore.class)
	JdbcClaimStore idempotentClaimStore(DataSource dataSource, SqlDialect dialect, IdempotentProperties properties,
			IdempotentForensicsProperties forensics) {
		return new JdbcClaimStore(dataSource, table(properties), dialect, Clock.systemUTC(),
				forensics.getFingerprint().isEnabled());
	}

	@Bean
	@ConditionalOnMissingBean
	TransactionalClaimExecutor idempotentClaimExecutor(ClaimStore claimStore,
			ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<ClaimListener> listeners,
			IdempotentProperties properties, ObjectProvider<ClaimObserver> observer,
			ObjectProvider<StoredOffsets> offsets) {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(claimStore,
				uniqueTransactionManager(transactionManager), claimListener(listeners), properties.getRetry().getTransactionRetries());
		executor.setHitLog(new HitLog(properties.keyMasker()));
		executor.setConflictLog(new ConflictLog(properties.keyMasker()));
		observer.ifUnique(executor::setClaimObserver);
		offsets.ifAvailable(executor::setOffsets);
		executor.setShadow(properties.isShadow());
		if (properties.isShadow()) {
			logger.warn("idempotent.shadow=true: every key is claimed and every duplicate is counted and logged as a hit"
					+ " on {}, but processed again; outputs and replies are not stored. Set idempotent.shadow=false to"
					+ " skip duplicates.", HitLog.LOGGER_NAME);
		}
		return executor;
	}

	@Bean
	@ConditionalOnMissingBean(LeasedClaimStore.class)
	JdbcLeasedClaimStore idempotentLeasedClaimStore(DataSource dataSource, SqlDialect dialect,
			IdempotentProperties properties) {
		return new JdbcLeasedClaimStore(dataSource, table(properties), dialect,
				Clock.systemUTC());
	}

	@Bean
	@Lazy
	@ConditionalOnMissingBean
	LeasedClaimExecutor idempotentLeasedClaimExecutor(LeasedClaimStore leased,
			ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<ClaimListener> listeners,
			IdempotentProperties properties, ObjectProvider<ClaimObserver> observer,
			ObjectProvider<StoredOffsets> offsets) {
		LeasedClaimExecutor executor = new LeasedClaimExecutor(leased, uniqueTransactionManager(transactionManager),
				claimListener(listeners), properties.getRetry().getTransactionRetries());
		executor.setHitLog(new HitLog(properties.keyMasker()));
		observer.ifUnique(executor::setClaimObserver);
		offsets.ifAvailable(executor::setOffsets);
		executor.setShadow(properties.isShadow());
		return executor;
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotentTemplate idempotentTemplate(TransactionalClaimExecutor executor, ObjectProvider<ClaimListener> listeners,
			IdempotentProperties properties) {
		return new IdempotentTemplate(executor, new KeyValidator(properties.getMaxKeyLength()),
				claimListener(listeners));
	}

	@Bean
	@ConditionalOnMissingBean
	ListenerMethods idempotentListenerMethods(IdempotentProperties properties, IdempotentForensicsProperties forensics,
			ConfigurableBeanFactory beanFactory) {
		ListenerMethods methods = new ListenerMethods(properties.getKeyHeader(),
				new KeyValidator(properties.getMaxKeyLength()), beanFactory::resolveEmbeddedValue, properties.getDefaultLease());
		methods.setFingerprints(forensics.getFingerprint().isEnabled());
		return methods;
	}

	@Bean
	static IdempotentListenerPostProcessor idempotentListenerPostProcessor(ObjectProvider<ListenerMethods> methods,
			ObjectProvider<TransactionalClaimExecutor> executor, ObjectProvider<LeasedClaimExecutor> leasedExecutor,
			ObjectProvider<ClaimListener> listeners, ObjectProvider<LateRecordGuard> lateRecords,
			ObjectProvider<ClaimOutputs> outputs, ObjectProvider<ListenerReplies> replies) {
		Supplier<ClaimListener> claimListener = SingletonSupplier
			.of(() -> claimListener(listeners));
		return new IdempotentListenerPostProcessor(SingletonSupplier.of(methods::getObject),
				SingletonSupplier.of(executor::getObject), SingletonSupplier.of(leasedExecutor::getObject), claimListener,
				SingletonSupplier.of(() -> lateRecords.getIfAvailable(() -> LateRecordGuard.NONE)),
				SingletonSupplier.of(outputs::getIfAvailable), SingletonSupplier.of(replies::getIfAvailable));
	}

	@Bean
	IdempotentListenerVerifier idempotentListenerVerifier(ObjectProvider<ListenerMethods> methods,
			BeanFactory beanFactory) {
		return new IdempotentListenerVerifier(methods::getObject, beanFactory);
	}

	@Bean
	ListenerScopes idempotentListenerScopes(ObjectProvider<ListenerMethods> methods,
			ConfigurableListableBeanFactory beanFactory) {
		return new ListenerScopes(methods::getObject, beanFactory);
	}

	@Bean
	ListenerReplies idempotentListenerReplies(ObjectProvider<ListenerMethods> methods, IdempotentProperties properties,
			BeanFactory beanFactory, ObjectProvider<ClaimOutputs> outputs, ObjectProvider<Replies> replies) {
		return new ListenerReplies(methods::getObject, properties.getUnstoredReplies(), properties.isShadow(),
				beanFactory, outputs::getIfAvailable, replies::getIfAvailable);
	}

	@Bean(ReplyFailureInstaller.BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE) // looked up while post-processors are registered: no WARN for that
	static ReplyFailureInstaller idempotentReplyFailureInstaller() {
		return new ReplyFailureInstaller();
	}

	@Bean
	static CurrentRecordInstaller idempotentCurrentRecordInstaller(Environment environment,
			ObjectProvider<StoredOffsets> offsets) {
		boolean stored = Binder.get(environment).bind(OFFSETS_ENABLED, Boolean.class).orElse(false);
		return new CurrentRecordInstaller(stored ? SingletonSupplier.of(offsets::getObject) : null);
	}

	/**
	 * The consumed offsets stored with the claims, when {@code idempotent.offsets.enabled=true}: every claim
	 * transaction stores them, and consumers seek to them on assignment.
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = OFFSETS_ENABLED, havingValue = "true")
	StoredOffsets idempotentStoredOffsets(DataSource dataSource, SqlDialect dialect, IdempotentProperties properties,
			IdempotentOffsetsProperties offsets, Environment environment) {
		if (Binder.get(environment).bind("idempotent.fast-path.redis.enabled", Boolean.class).orElse(false)) {
			throw new IllegalStateException("idempotent.offsets.enabled=true and idempotent.fast-path.redis.enabled=true"
					+ " cannot be combined: after a database failover that lost commits, Redis still remembers their keys,"
					+ " and the records read again would be skipped as hits instead of processed. Turn one of them off.");
		}
		return new StoredOffsets(new JdbcOffsetStore(dataSource, offsets.table(table(properties)), dialect,
				Clock.systemUTC()));
	}

	@Bean
	@ConditionalOnMissingBean
	FailureRecorder idempotentFailureRecorder(ClaimStore claimStore,
			ObjectProvider<PlatformTransactionManager> transactionManager, ObjectProvider<StoredOffsets> offsets) {
		FailureRecorder recorder = new FailureRecorder(claimStore, uniqueTransactionManager(transactionManager));
		offsets.ifAvailable(recorder::setOffsets);
		return recorder;
	}

	@Bean
	static ErrorHandlerClassifier idempotentErrorHandlerClassifier() {
		return new ErrorHandlerClassifier();
	}

	@Bean
	ContainerFactoryGuard idempotentContainerFactoryGuard(ObjectProvider<ListenerMethods> methods,
			ListableBeanFactory beanFactory) {
		return new ContainerFactoryGuard(methods::getObject, beanFactory);
	}

	/**
	 * Builds the starter's error handler and after-rollback processor, and the application's own with the starter's
	 * guarantees (docs/adopting.md, "Keep your error handler").
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(KafkaOperations.class)
	IdempotentErrorHandlers idempotentErrorHandlers(DeadLetterTemplates deadLetterTemplates,
			FailureRecorder failureRecorder, IdempotentProperties properties) {
		IdempotentProperties.Retry retry = properties.getRetry();
		return new IdempotentErrorHandlers(deadLetterTemplates, failureRecorder, properties.keyMasker(),
				properties.getDeadLetterSuffix(), new FixedBackOff(retry.getInterval().toMillis(), retry.getMaxRetries()),
				untilItPasses(retry));
	}

	/**
	 * The error handler when the application has none: failed records are retried with back-off, then published
	 * to {@code <topic>.DLT} with the exception and key headers, and their key is marked FAILED; bad keys (and
	 * null payloads in a batch) go to the DLT at once; transient failures (the database down, a lock or lease held
	 * elsewhere) are retried until they pass and never dead-lettered. The back-off is chosen from each attempt's
	 * own failure ({@link TransientAwareBackOff}), single records and batches alike.
	 */
	@Bean
	@ConditionalOnMissingBean(CommonErrorHandler.class)
	@ConditionalOnBean(KafkaOperations.class)
	DefaultErrorHandler idempotentErrorHandler(IdempotentErrorHandlers handlers) {
		return handlers.errorHandler();
	}

	/**
	 * The after-rollback processor when the application has none, for containers with a Kafka transaction manager
	 * (spring-kafka hands their failures to it, not to the error handler): the same retries, dead-letter topic,
	 * FAILED rows, bad keys at once and transient back-off as {@link #idempotentErrorHandler}; the recovered
	 * record's offset is committed in the Kafka transaction in which it was dead-lettered. Spring Boot sets it on
	 * its own factory; {@link ContainerFactoryGuard} on factories the application builds.
	 */
	@Bean
	@ConditionalOnMissingBean(AfterRollbackProcessor.class)
	@ConditionalOnBean(KafkaOperations.class)
	DefaultAfterRollbackProcessor<Object, Object> idempotentAfterRollbackProcessor(KafkaOperations<?, ?> kafkaOperations,
			IdempotentErrorHandlers handlers) {
		return handlers.afterRollbackProcessor(kafkaOperations);
	}

	/**
	 * The templates of the starter's dead-letter publishing: the application's, and one for the raw bytes of
	 * records an {@code ErrorHandlingDeserializer} could not read. Applications with their own error handler can
	 * give it to their {@code DeadLetterPublishingRecoverer} too.
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(KafkaOperations.class)
	DeadLetterTemplates idempotentDeadLetterTemplates(KafkaOperations<?, ?> kafkaOperations) {
		return new DeadLetterTemplates(kafkaOperations);
	}

	/**
	 * The components of {@code @RetryableTopic} retries, with bad keys and late records sent to the {@code -dlt}
	 * topic at once and the library's dead-letter headers, unless the application configures retry topics itself.
	 */
	@Bean
	@ConditionalOnMissingBean({ RetryTopicComponentFactory.class, RetryTopicConfigurationSupport.class })
	RetryTopicComponents idempotentRetryTopicComponents(ObjectProvider<DeadLetterTemplates> deadLetterTemplates) {
		return new RetryTopicComponents(deadLetterTemplates::getIfAvailable);
	}

	private static BackOff untilItPasses(IdempotentProperties.Retry retry) {
		ExponentialBackOff backOff = new ExponentialBackOff(retry.getInterval().toMillis(), 2.0);
		backOff.setMaxInterval(Math.max(retry.getInterval().toMillis(), retry.getTransientMaxInterval().toMillis()));
		backOff.setMaxElapsedTime(Long.MAX_VALUE);
		return backOff;
	}

	private static TableName table(IdempotentProperties properties) {
		return new TableName(properties.getTableName());
	}

	/** Every {@link ClaimListener} bean (metrics, the application's own), called in order. */
	private static ClaimListener claimListener(ObjectProvider<ClaimListener> listeners) {
		return CompositeClaimListener.of(listeners.orderedStream().toList());
	}

	private static PlatformTransactionManager uniqueTransactionManager(
			ObjectProvider<PlatformTransactionManager> transactionManager) {
		PlatformTransactionManager manager = transactionManager.getIfUnique();
		if (manager == null) {
			throw new IllegalStateException("@IdempotentListener needs exactly one PlatformTransactionManager for the "
					+ "business DataSource; found none, or several without a @Primary one (with Kafka transactions there"
					+ " is also a KafkaTransactionManager). Mark the JDBC transaction manager @Primary, or define a"
					+ " TransactionalClaimExecutor and a FailureRecorder bean to choose one.");
		}
		return manager;
	}

}
