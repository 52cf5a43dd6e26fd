package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.fastpath.FastPath;
import dev.idempotent.fastpath.FastPathAnswer;
import dev.idempotent.fastpath.FastPathClaims;
import dev.idempotent.fastpath.RememberedClaim;
import dev.idempotent.fastpath.redis.RedisFastPath;
import dev.idempotent.fastpath.redis.RedisProcess;
import dev.idempotent.metrics.MicrometerFastPathListener;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.METRICS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis fast path's auto-configuration: off by default, on with a Lettuce connection factory, refused at
 * startup without one or with a TTL longer than retention; the default key prefix names the database, so that
 * deployments on separate databases (MariaDB and PostgreSQL here) sharing one Redis do not read each other's keys.
 * Only that test contacts a Redis (a private one); elsewhere the factory connects lazily.
 */
class RedisFastPathAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				METRICS, IdempotentAutoConfiguration.class,
				IdempotentMetricsAutoConfiguration.class, RedisFastPathAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:9",
				"spring.datasource.url=jdbc:h2:mem:fast-path-autoconfig;MODE=MySQL;DB_CLOSE_DELAY=-1");

	private final ApplicationContextRunner withRedis = this.runner.withBean(LettuceConnectionFactory.class,
			() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1)));

	@Test
	void isOffByDefault() {
		this.withRedis.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(FastPath.class)
			.doesNotHaveBean(FastPathClaims.class));
	}

	@Test
	void isOnWithALettuceConnectionFactoryAndMeters() {
		this.withRedis.withPropertyValues("idempotent.fast-path.redis.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisFastPath.class)
				.hasSingleBean(MicrometerFastPathListener.class);
			assertThat(context.getBean(FastPathClaims.class).enabled()).isTrue();
		});
	}

	@Test
	void theTtlDefaultsToTheRetentionPeriodAndMayBeShorter() {
		assertThat(RedisFastPathAutoConfiguration.ttl(new RedisFastPathProperties(), retention(Duration.ofDays(7))))
			.isEqualTo(Duration.ofDays(7));
		RedisFastPathProperties shorter = new RedisFastPathProperties();
		shorter.setTtl(Duration.ofDays(2));
		assertThat(RedisFastPathAutoConfiguration.ttl(shorter, retention(Duration.ofDays(7)))).isEqualTo(Duration.ofDays(2));
		assertThat(RedisFastPathAutoConfiguration.ttl(new RedisFastPathProperties(),
				new dev.idempotent.autoconfigure.IdempotentRetentionProperties()))
			.isEqualTo(RedisFastPathAutoConfiguration.DEFAULT_TTL);
	}

	@Test
	void aTtlLongerThanRetentionIsRefusedAtStartup() {
		this.withRedis
			.withPropertyValues("idempotent.fast-path.redis.enabled=true", "idempotent.fast-path.redis.ttl=8d",
					"idempotent.retention.enabled=true", "idempotent.retention.period=7d")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("idempotent.fast-path.redis.ttl")
				.hasMessageContaining("idempotent.retention.period"));
	}

	@Test
	void withoutAConnectionFactoryItIsRefusedAtStartup() {
		this.runner.withPropertyValues("idempotent.fast-path.redis.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("spring-boot-starter-data-redis"));
	}

	@Test
	void withoutSpringDataRedisItIsRefusedAtStartup() {
		this.runner.withClassLoader(new FilteredClassLoader(LettuceConnectionFactory.class))
			.withPropertyValues("idempotent.fast-path.redis.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("spring-boot-starter-data-redis"));
	}

	@Test
	void deploymentsWithSeparateDatabasesSharingARedisDoNotReadEachOthersKeys() throws Exception {
		String table = "fast_path_" + UUID.randomUUID().toString().substring(0, 8);
		ClaimRequest processed = new ClaimRequest("ledger-consumers", "order-1", null);
		try (RedisProcess redis = RedisProcess.start()) {
			ApplicationContextRunner shared = this.runner
				.withBean(LettuceConnectionFactory.class,
						() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port())))
				.withPropertyValues("idempotent.fast-path.redis.enabled=true", "idempotent.table-name=" + table,
						"idempotent.jdbc.initialize-schema=always");
			ApplicationContextRunner mariadb = on(shared, TestDatabases.MARIADB);
			ApplicationContextRunner postgresql = on(shared, TestDatabases.POSTGRESQL);
			mariadb.run((context) -> assertThat(context.getBean(RedisFastPath.class)
				.remember(List.of(new RememberedClaim(processed, Instant.now())))).isNull());

			postgresql.run((context) -> assertThat(context.getBean(RedisFastPath.class).knows(processed))
				.as("a deployment on another database with the same table and scope").isEqualTo(FastPathAnswer.UNKNOWN));
			mariadb.run((context) -> assertThat(context.getBean(RedisFastPath.class).knows(processed))
				.as("another application on the same database").isInstanceOf(FastPathAnswer.Known.class));
		}
		finally {
			TestDatabases.drop(TestDatabases.mariadb(), table);
			TestDatabases.drop(TestDatabases.postgresql(), table);
		}
	}

	private static ApplicationContextRunner on(ApplicationContextRunner runner, TestDatabases.Connection database) {
		return runner.withPropertyValues("spring.datasource.url=" + database.url(),
				"spring.datasource.username=" + database.user(), "spring.datasource.password=" + database.password());
	}

	private static dev.idempotent.autoconfigure.IdempotentRetentionProperties retention(Duration period) {
		dev.idempotent.autoconfigure.IdempotentRetentionProperties retention = new dev.idempotent.autoconfigure.IdempotentRetentionProperties();
		retention.setEnabled(true);
		retention.setPeriod(period);
		return retention;
	}

}
