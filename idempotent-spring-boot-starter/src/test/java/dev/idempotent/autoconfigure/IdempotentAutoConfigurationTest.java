package dev.idempotent.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.listener.IdempotentListenerInterceptor;
import dev.idempotent.kafka.listener.IdempotentListenerPostProcessor;
import dev.idempotent.kafka.offset.StoredOffsets;
import dev.idempotent.kafka.offset.StoredOffsetsRebalanceListener;
import dev.idempotent.kafka.support.CurrentRecordInstaller;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.DirectFieldAccessor;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionInterceptor;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.FLYWAY;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class IdempotentAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class, IdempotentMetricsAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:autoconfig;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	@Test
	void providesTheClaimChainOnTheApplicationsDataSource() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(ClaimStore.class)
				.hasSingleBean(TransactionalClaimExecutor.class)
				.hasSingleBean(IdempotentListenerPostProcessor.class)
				.hasSingleBean(CurrentRecordInstaller.class)
				.hasSingleBean(IdempotentTemplate.class)
				.hasSingleBean(CommonErrorHandler.class);
			assertThat(context.getBean(CommonErrorHandler.class)).isInstanceOf(DefaultErrorHandler.class);
			assertThat(context.getBean(JdbcClaimStore.class).getDialect()).isEqualTo(SqlDialect.H2);
			assertThat(new JdbcTemplate(context.getBean(DataSource.class))
				.queryForObject("SELECT COUNT(*) FROM idempotent_claim", Integer.class)).isZero();
		});
	}

	@Test
	void offsetsAreStoredWithTheClaimsOnlyWhenAskedFor() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(StoredOffsets.class));
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:offsets;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.offsets.enabled=true")
			.withBean("kafkaListenerContainerFactory", ConcurrentKafkaListenerContainerFactory.class,
					ConcurrentKafkaListenerContainerFactory::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(StoredOffsets.class);
				assertThat(new JdbcTemplate(context.getBean(DataSource.class))
					.queryForObject("SELECT COUNT(*) FROM idempotent_claim_offset", Integer.class)).isZero();
				ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
					.getBean(ConcurrentKafkaListenerContainerFactory.class);
				assertThat(factory.getContainerProperties().getConsumerRebalanceListener())
					.isInstanceOf(StoredOffsetsRebalanceListener.class);
			});
	}

	@Test
	void storedOffsetsRefuseAsynchronousAcknowledgmentsAndTheRedisFastPath() {
		ApplicationContextRunner offsets = this.runner.withPropertyValues(
				"spring.datasource.url=jdbc:h2:mem:offsetsrefused;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"idempotent.offsets.enabled=true");
		offsets.withBean("asyncFactory", ConcurrentKafkaListenerContainerFactory.class, () -> {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.getContainerProperties().setAsyncAcks(true);
			return factory;
		}).run((context) -> assertThat(context).getFailure()
			.rootCause()
			.hasMessageContaining("'asyncFactory' acknowledges asynchronously (asyncAcks)"));
		offsets.withPropertyValues("idempotent.fast-path.redis.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("idempotent.fast-path.redis.enabled=true cannot be combined"));
	}

	@Test
	void failsAtStartupWhenTheOffsetTableIsMissingSayingHowToCreateIt() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:nooffsets;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.offsets.enabled=true", "idempotent.offsets.table-name=offsets_never_created",
					"idempotent.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(SchemaValidator.InvalidSchemaException.class)
				.hasMessageContaining("offset table offsets_never_created does not exist")
				.hasMessageContaining("CREATE TABLE IF NOT EXISTS offsets_never_created"));
	}

	@Test
	void theSchemaIsOnlyCreatedWhenAskedFor() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:noschema;MODE=MySQL",
					"idempotent.jdbc.initialize-schema=never", "idempotent.jdbc.schema-validation=none",
					"idempotent.table-name=never_created")
			.run((context) -> assertThat(new JdbcTemplate(context.getBean(DataSource.class))
				.queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'NEVER_CREATED'",
						Integer.class))
				.isZero());
	}

	@Test
	void failsAtStartupWhenTheTableIsMissingSayingHowToCreateIt() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:missing;MODE=MySQL",
					"idempotent.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(SchemaValidator.InvalidSchemaException.class)
				.hasMessageContaining("table idempotent_claim does not exist")
				.hasMessageContaining("CREATE TABLE IF NOT EXISTS idempotent_claim"));
	}

	@Test
	void aFailedStartupCheckCanBeDowngradedToAWarning(CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:warned;MODE=MySQL",
					"idempotent.jdbc.initialize-schema=never", "idempotent.jdbc.schema-validation=warn")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("WARN").contains("table idempotent_claim does not exist");
			});
	}

	@Test
	void createsAndChecksTheTableAfterFlywayMigrations() {
		this.runner.withConfiguration(AutoConfigurations.of(FLYWAY))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:flyway;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"spring.flyway.locations=classpath:db/flyway-test", "idempotent.jdbc.initialize-schema=always")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
				assertThat(beanFactory.getBeanDefinition("idempotentSchemaInitialization").getDependsOn())
					.contains("flywayInitializer");
				assertThat(beanFactory.getBeanDefinition("idempotentSchemaValidation").getDependsOn())
					.contains("flywayInitializer", "idempotentSchemaInitialization");
			});
	}

	@Test
	void stepsAsideForTheApplicationsOwnBeans() {
		this.runner.withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(ClaimStore.class).hasSingleBean(CommonErrorHandler.class);
			assertThat(context.getBean(ClaimStore.class)).isSameAs(context.getBean(UserBeans.class).store);
			assertThat(context.getBean(CommonErrorHandler.class)).isInstanceOf(CommonLoggingErrorHandler.class);
			AbstractMessageListenerContainer<?, ?> container = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class)
				.createContainer("orders");
			assertThat(container.getCommonErrorHandler()).isSameAs(context.getBean(CommonErrorHandler.class));
		});
	}

	@Test
	void theApplicationsDefaultErrorHandlerDoesNotRetryBadKeys() {
		this.runner.withBean("userErrorHandler", DefaultErrorHandler.class, DefaultErrorHandler::new).run((context) -> {
			DefaultErrorHandler handler = context.getBean(DefaultErrorHandler.class);
			assertThat(handler).isSameAs(context.getBean("userErrorHandler"));
			assertThat(handler.removeClassification(InvalidIdempotencyKeyException.class)).as("retryable?").isFalse();
		});
	}

	@Test
	void theStartersErrorHandlerRetriesTransientFailuresUntilTheyPass() {
		this.runner.run((context) -> {
			DefaultErrorHandler handler = context.getBean(DefaultErrorHandler.class);
			assertThat(handler.removeClassification(InvalidIdempotencyKeyException.class)).isFalse();
			assertThat(dev.idempotent.kafka.error.TransientFailures
				.isTransient(new RuntimeException(new org.springframework.jdbc.CannotGetJdbcConnectionException("down"))))
				.isTrue();
			assertThat(dev.idempotent.kafka.error.TransientFailures.isTransient(new IllegalStateException("bug"))).isFalse();
		});
	}

	@Test
	@SuppressWarnings("unchecked")
	void composesWithTheApplicationsRecordInterceptorAndContainerCustomizer() {
		this.runner.withUserConfiguration(UserKafkaHooks.class).run((context) -> {
			UserKafkaHooks hooks = context.getBean(UserKafkaHooks.class);
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			RecordInterceptor<Object, Object> interceptor = (RecordInterceptor<Object, Object>) new DirectFieldAccessor(
					factory).getPropertyValue("recordInterceptor");
			assertThat(interceptor).isInstanceOf(CompositeRecordInterceptor.class);
			ConsumerRecord<Object, Object> record = new ConsumerRecord<>("orders", 0, 7L, "k", "v");
			assertThat(interceptor.intercept(record, null)).isSameAs(record);
			assertThat(hooks.intercepted).hasValue(1);

			factory.createContainer("orders");
			assertThat(hooks.customized).hasValue(1);
		});
	}

	@Test
	void backsOffWithoutADataSource() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(KAFKA, IdempotentAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ClaimStore.class));
	}

	@Test
	void refusesATableNameThatIsNotAnIdentifier() {
		this.runner.withPropertyValues("idempotent.table-name=claims; DROP TABLE t_ledger")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("Invalid idempotency table name 'claims; DROP TABLE t_ledger'"));
	}

	@Test
	void countsClaimsInMicrometerWhenARegistryIsPresent() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.run((context) -> assertThat(context).hasSingleBean(MicrometerClaimListener.class));
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(MicrometerClaimListener.class));
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(TransactionalClaimExecutor.class)
				.doesNotHaveBean(MicrometerClaimListener.class));
	}

	@Test
	void failsAtStartupNamingAMethodWhoseKeyExpressionDoesNotParse() {
		this.runner.withBean(BadExpressionListener.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Invalid @IdempotentListener")
				.hasMessageContaining("BadExpressionListener.onEvent(java.lang.String)")
				.hasMessageContaining("does not parse"));
	}

	@Test
	void failsAtStartupNamingAnIdempotentMethodThatNoKafkaListenerReaches() {
		this.runner.withBean(NotAListener.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("NotAListener.onEvent(java.lang.String) is not reached by any Kafka listener"));
	}

	@Test
	void acceptsBatchListenersThatTakeTheBatchAsAList() {
		this.runner.withBean(BatchListener.class).run((context) -> assertThat(context).hasNotFailed());
		this.runner.withBean(LeasedBatch.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("is a batch listener in LEASED mode"));
		this.runner.withBean(BatchWithoutList.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("BatchWithoutList.onBatch(java.lang.String) must take the batch as a List"));
	}

	@Test
	void refusesAConsumerThatAutoCommitsOffsets() {
		this.runner.withBean(AutoCommitListener.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("AutoCommitListener.onEvent(java.lang.String) runs on a consumer with"
						+ " enable.auto.commit=true"));
		this.runner.withBean(PlainListener.class)
			.withPropertyValues("spring.kafka.consumer.enable-auto-commit=true")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("PlainListener.onEvent(java.lang.String) runs on a consumer with"
						+ " enable.auto.commit=true"));
		this.runner.withBean(PlainListener.class)
			.withPropertyValues("spring.kafka.consumer.enable-auto-commit=false")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void refusesReturnTypesAHitCannotHonour() {
		this.runner.withBean(PrimitiveListener.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("PrimitiveListener.onEvent(java.lang.String) returns a primitive"));
		this.runner.withBean(AsyncListener.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("returns java.util.concurrent.CompletableFuture"));
	}

	@Test
	void refusesAScopeTheTableCannotHold() {
		this.runner.withBean(LongScopeListener.class)
			.withPropertyValues("test.long-scope=" + "s".repeat(129))
			.run((context) -> assertThat(context).getFailure().hasMessageContaining("cannot be stored: at most 128"));
	}

	@Test
	@SuppressWarnings({ "removal", "unchecked" })
	void refusesAContainerWithADatabaseTransactionManager() {
		this.runner.withBean(PlainListener.class)
			.withBean("kafkaListenerContainerFactory", ConcurrentKafkaListenerContainerFactory.class, () -> {
				ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
				factory.setConsumerFactory(new org.springframework.kafka.core.DefaultKafkaConsumerFactory<>(
						java.util.Map.of("bootstrap.servers", "127.0.0.1:9")));
				factory.getContainerProperties().setTransactionManager(
						new org.springframework.jdbc.datasource.DataSourceTransactionManager(
								new org.springframework.jdbc.datasource.DriverManagerDataSource("jdbc:h2:mem:tm")));
				return factory;
			})
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("runs in a listener container with a transaction manager"));
	}

	@Test
	void theClaimIsTheOutermostAdviceAroundTransactional() {
		this.runner.withUserConfiguration(TransactionalListenerConfiguration.class).run((context) -> {
			Object bean = context.getBean(TransactionalListener.class);
			assertThat(bean).isInstanceOf(Advised.class);
			var advisors = ((Advised) bean).getAdvisors();
			assertThat(advisors).hasSizeGreaterThanOrEqualTo(2);
			assertThat(advisors[0].getAdvice().getClass().getSimpleName()).isEqualTo("IdempotentListenerInterceptor");
			assertThat(advisors[1].getAdvice()).isInstanceOf(TransactionInterceptor.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		final ClaimStore store = new ClaimStore() {
			@Override
			public ClaimResult claim(ClaimRequest request) {
				return new ClaimResult.Claimed(false);
			}

			@Override
			public ClaimCheckpoint checkpoint() {
				return ClaimCheckpoint.NONE;
			}

			@Override
			public void markFailed(ClaimRequest request, int attempts, String lastError) {
			}
		};

		@Bean
		ClaimStore userClaimStore() {
			return this.store;
		}

		@Bean
		CommonLoggingErrorHandler userErrorHandler() {
			return new CommonLoggingErrorHandler();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserKafkaHooks {

		final AtomicInteger intercepted = new AtomicInteger();

		final AtomicInteger customized = new AtomicInteger();

		@Bean
		RecordInterceptor<Object, Object> userRecordInterceptor() {
			return (record, consumer) -> {
				this.intercepted.incrementAndGet();
				return record;
			};
		}

		@Bean
		ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> userCustomizer() {
			return (container) -> this.customized.incrementAndGet();
		}

	}

	static class BadExpressionListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false")
		@IdempotentListener(key = "#payload.(")
		public void onEvent(String payload) {
		}

	}

	static class NotAListener {

		@IdempotentListener(key = "#payload")
		public void onEvent(String payload) {
		}

	}

	static class BatchListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false", batch = "true")
		@IdempotentListener(key = "#payload")
		public void onBatch(java.util.List<ConsumerRecord<String, String>> records) {
		}

	}

	static class LeasedBatch {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false", batch = "true")
		@IdempotentListener(key = "#payload", mode = dev.idempotent.claim.ClaimMode.LEASED)
		public void onBatch(java.util.List<String> payloads) {
		}

	}

	static class BatchWithoutList {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false", batch = "true")
		@IdempotentListener(key = "#payload")
		public void onBatch(String payload) {
		}

	}

	static class AutoCommitListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false",
				properties = "enable.auto.commit=true")
		@IdempotentListener(key = "#payload")
		public void onEvent(String payload) {
		}

	}

	static class PrimitiveListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public boolean onEvent(String payload) {
			return true;
		}

	}

	static class AsyncListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public java.util.concurrent.CompletableFuture<Void> onEvent(String payload) {
			return java.util.concurrent.CompletableFuture.completedFuture(null);
		}

	}

	static class LongScopeListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "${test.long-scope}")
		public void onEvent(String payload) {
		}

	}

	static class PlainListener {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onEvent(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionalListenerConfiguration {

		@Bean
		TransactionalListener transactionalListener() {
			return new TransactionalListener();
		}

	}

	static class TransactionalListener {

		@Transactional
		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onEvent(String payload) {
		}

	}

}
