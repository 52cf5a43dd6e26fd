package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.Set;

import javax.sql.DataSource;

import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.fastpath.DatabaseIdentity;
import dev.idempotent.fastpath.DatabaseOnlyHits;
import dev.idempotent.fastpath.FastPath;
import dev.idempotent.fastpath.FastPathClaims;
import dev.idempotent.fastpath.FastPathListener;
import dev.idempotent.fastpath.redis.RedisFastPath;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.kafka.support.PolledRecordsInstaller;
import dev.idempotent.metrics.MicrometerFastPathListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The Redis fast path when {@code idempotent.fast-path.redis.enabled=true} (docs/fast-path.md): a
 * {@link RedisFastPath} on the application's Lettuce connection factory, given to the
 * {@link TransactionalClaimExecutor}, and its meters ({@link MicrometerFastPathListener}) when Micrometer is there.
 * Refused at startup, with what to do, when Spring Data Redis with Lettuce is missing, or when the TTL is longer
 * than the retention period. {@code LEASED} listeners do not use it. Every bean steps aside for one the application
 * defines.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class,
		afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnProperty(prefix = "idempotent.fast-path.redis", name = "enabled", havingValue = "true")
@ConditionalOnBean(TransactionalClaimExecutor.class)
@EnableConfigurationProperties({ RedisFastPathProperties.class, IdempotentProperties.class,
		IdempotentRetentionProperties.class })
public class RedisFastPathAutoConfiguration {

	/** The TTL when retention is off and none is set. */
	static final Duration DEFAULT_TTL = Duration.ofDays(1);

	@Bean
	@ConditionalOnMissingBean
	FastPathClaims idempotentFastPathClaims(ObjectProvider<FastPath> fastPath, ObjectProvider<FastPathListener> listeners,
			RedisFastPathProperties properties, ObjectProvider<ClaimOutputs> outputs) {
		FastPath path = fastPath.getIfUnique(() -> {
			throw new IllegalStateException("idempotent.fast-path.redis.enabled=true, but Spring Data Redis with "
					+ "Lettuce is not on the class path: add spring-boot-starter-data-redis, or turn the fast path off.");
		});
		// a hit on a key with stored outputs must reach the database, which sends them again: never learnt from hits
		DatabaseOnlyHits withOutputs = (scope, keys) -> {
			ClaimOutputs claimOutputs = outputs.getIfAvailable();
			return (claimOutputs != null) ? claimOutputs.keysWithOutputs(scope, keys) : Set.of();
		};
		return new FastPathClaims(path, listeners.getIfUnique(() -> FastPathListener.NO_OP),
				properties.getPauseAfterError(), withOutputs);
	}

	@Bean
	static BeanPostProcessor idempotentFastPathInstaller(ObjectProvider<FastPathClaims> fastPath) {
		return new BeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof TransactionalClaimExecutor executor) {
					executor.setFastPath(fastPath.getObject());
				}
				return bean;
			}
		};
	}

	/**
	 * Binds each poll's records to the consumer thread, so that single-record listeners ask the fast path once per
	 * poll ({@code idempotent.fast-path.redis.prefetch}, on by default).
	 */
	@Bean
	@ConditionalOnProperty(prefix = "idempotent.fast-path.redis", name = "prefetch", havingValue = "true",
			matchIfMissing = true)
	static PolledRecordsInstaller idempotentPolledRecordsInstaller() {
		return new PolledRecordsInstaller();
	}

	/**
	 * The TTL to use: the configured one, which must not outlive retention; else the retention period, or
	 * {@link #DEFAULT_TTL} without retention.
	 */
	static Duration ttl(RedisFastPathProperties properties, IdempotentRetentionProperties retention) {
		Duration period = (retention.isEnabled()) ? retention.getPeriod() : null;
		Duration ttl = properties.getTtl();
		if (ttl == null) {
			return (period != null) ? period : DEFAULT_TTL;
		}
		if (period != null && ttl.compareTo(period) > 0) {
			throw new IllegalStateException("idempotent.fast-path.redis.ttl (" + ttl + ") is longer than "
					+ "idempotent.retention.period (" + period + "): Redis would still answer 'processed' for keys whose "
					+ "rows retention removed, and a record replayed in between would be skipped although the database "
					+ "would process it. Set the TTL to the period or less, or leave it unset (it then defaults to the "
					+ "period).");
		}
		return ttl;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ LettuceConnectionFactory.class, io.lettuce.core.RedisClient.class })
	static class LettuceFastPath {

		@Bean
		@ConditionalOnMissingBean(FastPath.class)
		RedisFastPath idempotentRedisFastPath(ObjectProvider<RedisConnectionFactory> connectionFactory,
				RedisFastPathProperties properties, IdempotentProperties idempotent,
				IdempotentRetentionProperties retention, ObjectProvider<JdbcClaimStore> claims,
				ObjectProvider<DataSource> dataSource) {
			RedisConnectionFactory factory = connectionFactory.getIfUnique();
			if (!(factory instanceof LettuceConnectionFactory lettuce)) {
				throw new IllegalStateException("idempotent.fast-path.redis.enabled=true needs one Lettuce "
						+ "RedisConnectionFactory (spring-boot-starter-data-redis with its default client, configured "
						+ "with spring.data.redis.*); found " + ((factory != null) ? factory.getClass().getName()
								: "none") + ". Add the starter, or turn the fast path off.");
			}
			String prefix = (properties.getKeyPrefix() != null) ? properties.getKeyPrefix()
					: defaultKeyPrefix(idempotent, claims.getIfUnique(() -> {
						throw new IllegalStateException("idempotent.fast-path.redis.key-prefix is not set and the "
								+ "starter's JdbcClaimStore, which names the database in the default prefix, is not "
								+ "there: set the prefix to a name unique to this database, so that deployments with "
								+ "separate databases sharing this Redis never read each other's keys.");
					}), dataSource.getObject());
			return new RedisFastPath(lettuce, prefix, ttl(properties, retention), properties.getTimeout());
		}

	}

	/**
	 * {@code idempotent:<table>:<the database's name>:}: the name ({@link DatabaseIdentity}) is drawn once and kept in
	 * the database, so that deployments with separate databases never share keys, even with one Redis, the same group
	 * ids and the same table name, while every application on the same database does.
	 */
	static String defaultKeyPrefix(IdempotentProperties idempotent, JdbcClaimStore claims, DataSource dataSource) {
		// a transaction of its own on the claim store's DataSource, whatever transaction managers the application has
		return "idempotent:" + idempotent.getTableName() + ":"
				+ DatabaseIdentity.of(claims, new DataSourceTransactionManager(dataSource)) + ":";
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class FastPathMeters {

		@Bean
		@ConditionalOnMissingBean
		MicrometerFastPathListener idempotentMicrometerFastPathListener(MeterRegistry registry) {
			return new MicrometerFastPathListener(registry);
		}

	}

}
