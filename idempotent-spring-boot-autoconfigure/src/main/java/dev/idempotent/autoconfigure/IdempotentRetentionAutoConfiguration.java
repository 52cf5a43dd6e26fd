package dev.idempotent.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.method.ListenerMethods;
import dev.idempotent.kafka.startup.RetentionWindowCheck;
import dev.idempotent.retention.JdbcRetentionJob;
import dev.idempotent.retention.LateRecordGuard;
import dev.idempotent.retention.RetentionListener;
import dev.idempotent.retention.RetentionMode;
import dev.idempotent.retention.RetentionPolicy;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Retention of the idempotency table when {@code idempotent.retention.enabled=true}: the {@link RetentionPolicy}
 * from {@link IdempotentRetentionProperties}, the {@link JdbcRetentionJob} run on a schedule (stopped with the
 * context), the {@link LateRecordGuard} applied to every delivery before its claim, and the startup
 * {@link RetentionWindowCheck} against the topics' retention on the broker. The archive table is created and
 * checked with the idempotency table (see {@link IdempotentAutoConfiguration}). Every bean steps aside for one
 * the application defines.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class)
@ConditionalOnBean(SqlDialect.class)
@ConditionalOnProperty(prefix = "idempotent.retention", name = "enabled", havingValue = "true")
@EnableConfigurationProperties({ IdempotentProperties.class, IdempotentRetentionProperties.class,
		IdempotentForensicsProperties.class })
public class IdempotentRetentionAutoConfiguration {

	/** Below this period the startup WARNs: offsets can take longer than that to be committed or replayed. */
	static final Duration SHORTEST_SAFE_PERIOD = Duration.ofDays(1);

	private static final Logger logger = LoggerFactory.getLogger(IdempotentRetentionAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	RetentionPolicy idempotentRetentionPolicy(IdempotentRetentionProperties retention) {
		RetentionPolicy policy = new RetentionPolicy(retention.getPeriod(), retention.getMode(),
				retention.isIncludeFailed(), retention.getBatchSize());
		if (policy.period().compareTo(SHORTEST_SAFE_PERIOD) < 0) {
			logger.warn("idempotent.retention.period={} is shorter than {}: a record whose offset commit is delayed"
					+ " (error-handler retries, a paused container, a long rebalance) or that is replayed later can"
					+ " outlive its key and be processed again. Keep the period longer than the longest replay;"
					+ " see docs/operations.md, 'Retention period shorter than a day'", policy.period(),
					SHORTEST_SAFE_PERIOD);
		}
		return policy;
	}

	@Bean
	@ConditionalOnMissingBean
	JdbcRetentionJob idempotentRetentionJob(DataSource dataSource, SqlDialect dialect, RetentionPolicy policy,
			IdempotentProperties properties, IdempotentRetentionProperties retention,
			IdempotentForensicsProperties forensics, ObjectProvider<RetentionListener> listeners,
			ObjectProvider<IdempotentOutputsProperties> outputs) {
		TableName table = new TableName(properties.getTableName());
		JdbcRetentionJob job = new JdbcRetentionJob(dataSource, table, archiveTable(properties, retention), dialect,
				policy, Clock.systemUTC(), RetentionListener.of(listeners.orderedStream().toList()),
				forensics.getFingerprint().isEnabled());
		IdempotentOutputsProperties outputProperties = outputs.getIfAvailable();
		return (outputProperties != null && outputProperties.isEnabled()) ? job.withOutputs(outputProperties.table(table))
				: job;
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	IdempotentRetentionScheduler idempotentRetentionScheduler(JdbcRetentionJob job,
			IdempotentRetentionProperties retention) {
		return new IdempotentRetentionScheduler(job, retention.getInitialDelay(), retention.getInterval());
	}

	@Bean
	@ConditionalOnMissingBean
	LateRecordGuard idempotentLateRecordGuard(RetentionPolicy policy, IdempotentProperties properties,
			IdempotentRetentionProperties retention, ObjectProvider<RetentionListener> listeners) {
		return new LateRecordGuard(policy.period(), retention.getLateRecords(), Clock.systemUTC(),
				RetentionListener.of(listeners.orderedStream().toList()), properties.keyMasker());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(KafkaAdmin.class)
	RetentionWindowCheck idempotentRetentionWindowCheck(ListenerMethods methods, KafkaAdmin kafkaAdmin,
			RetentionPolicy policy, IdempotentRetentionProperties retention, ConfigurableBeanFactory beanFactory) {
		return new RetentionWindowCheck(methods, kafkaAdmin.getConfigurationProperties(), policy.period(),
				retention.getWindowCheck(), (expression) -> evaluate(beanFactory, expression));
	}

	private static @Nullable Object evaluate(ConfigurableBeanFactory beanFactory, String expression) {
		BeanExpressionResolver resolver = beanFactory.getBeanExpressionResolver();
		return (resolver != null) ? resolver.evaluate(expression, new BeanExpressionContext(beanFactory, null))
				: expression;
	}

	/**
	 * Return the archive table when retention archives, else {@code null}.
	 * @param properties the idempotency settings
	 * @param retention the retention settings, {@code null} when retention is not configured
	 * @return the archive table, or {@code null} when retention is off or deletes
	 */
	static @Nullable TableName archiveTable(IdempotentProperties properties,
			@Nullable IdempotentRetentionProperties retention) {
		if (retention == null || !retention.isEnabled() || retention.getMode() != RetentionMode.ARCHIVE) {
			return null;
		}
		String name = retention.getArchiveTableName();
		return (name != null) ? new TableName(name) : new TableName(properties.getTableName()).archive();
	}

}
