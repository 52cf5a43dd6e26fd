package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.startup.RetentionWindowCheck;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.metrics.MicrometerRetentionListener;
import dev.idempotent.retention.JdbcRetentionJob;
import dev.idempotent.retention.LateRecordGuard;
import dev.idempotent.retention.LateRecordPolicy;
import dev.idempotent.retention.RetentionListener;
import dev.idempotent.retention.RetentionMode;
import dev.idempotent.retention.RetentionPolicy;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.METRICS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Retention's auto-configuration on H2: off by default, a period required, the archive table created and
 * checked with the idempotency table, the job scheduled and stopped with the context, metrics, and beans that
 * step aside. Times are written in UTC while the JVM runs in UTC+8 and the H2 session in another zone.
 */
class IdempotentRetentionAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				METRICS, IdempotentAutoConfiguration.class,
				IdempotentMetricsAutoConfiguration.class, IdempotentRetentionAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:9");

	@Test
	void isOffByDefaultSoKeysAreKeptForever() {
		this.runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-off;MODE=MySQL;DB_CLOSE_DELAY=-1")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(JdbcRetentionJob.class)
					.doesNotHaveBean(IdempotentRetentionScheduler.class)
					.doesNotHaveBean(LateRecordGuard.class)
					.doesNotHaveBean(RetentionWindowCheck.class);
				assertThat(tableExists(context, "IDEMPOTENT_CLAIM_ARCHIVE")).isFalse();
			});
	}

	@Test
	void enabledWithoutAPeriodFailsSayingWhatToSet() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-noperiod;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.retention.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("idempotent.retention.period"));
	}

	@Test
	@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
	void aPeriodShorterThanADayIsWarnedAbout(org.springframework.boot.test.system.CapturedOutput output) {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-short;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.retention.enabled=true", "idempotent.retention.period=1h",
					"idempotent.retention.window-check=none")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("WARN").contains("idempotent.retention.period=PT1H is shorter than PT24H");
			});
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-long;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.retention.enabled=true", "idempotent.retention.period=2d",
					"idempotent.retention.window-check=none")
			.run((context) -> assertThat(output).doesNotContain("idempotent.retention.period=PT48H is shorter"));
	}

	@Test
	void archivesOnScheduleCountsAndStopsWithTheContext() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-on;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"spring.datasource.hikari.connection-init-sql=SET TIME ZONE '-03:00'",
					"idempotent.retention.enabled=true", "idempotent.retention.period=7d",
					"idempotent.retention.initial-delay=0s", "idempotent.retention.interval=200ms",
					"idempotent.retention.batch-size=2")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(IdempotentRetentionScheduler.class);
				assertThat(tableExists(context, "IDEMPOTENT_CLAIM_ARCHIVE")).as("created with the table").isTrue();
				LocalDateTime utcNow = LocalDateTime.now(ZoneOffset.UTC);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				for (int i = 0; i < 3; i++) {
					insert(jdbc, "old-" + i, utcNow.minusDays(7).minusMinutes(1));
				}
				insert(jdbc, "young", utcNow.minusDays(7).plusMinutes(5));
				MeterRegistry meters = context.getBean(MeterRegistry.class);

				await().atMost(Duration.ofSeconds(30))
					.until(() -> count(jdbc, "idempotent_claim_archive") == 3);
				assertThat(jdbc.queryForList("SELECT idempotency_key FROM idempotent_claim", String.class))
					.containsExactly("young");
				assertThat(meters.get(MicrometerRetentionListener.ROWS).tag("action", "archived").counter().count())
					.isEqualTo(3);
				await().atMost(Duration.ofSeconds(30))
					.until(() -> meters.get(MicrometerRetentionListener.RUNS).tag("outcome", "success").counter().count() >= 2);

				IdempotentRetentionScheduler scheduler = context.getBean(IdempotentRetentionScheduler.class);
				assertThat(scheduler.isRunning()).isTrue();
				((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
				assertThat(scheduler.isRunning()).isFalse();
				assertThat(Thread.getAllStackTraces().keySet())
					.noneMatch((thread) -> thread.getName().startsWith("idempotent-retention-") && thread.isAlive());
			});
	}

	@Test
	void aMissingArchiveTableStopsTheStartupSayingHowToCreateIt() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-noarchive;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.jdbc.initialize-schema=never", "idempotent.retention.enabled=true",
					"idempotent.retention.period=30d", "idempotent.retention.archive-table-name=claims_history")
			.withInitializer((context) -> {
				DriverManagerDataSource dataSource = new DriverManagerDataSource(
						"jdbc:h2:mem:retention-noarchive;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");
				new SchemaInitializer(dataSource, new TableName(TableName.DEFAULT), SqlDialect.H2).initialize();
				SchemaInitializer.outputs(dataSource, new TableName(TableName.DEFAULT_OUTPUT), SqlDialect.H2).initialize();
			})
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(SchemaValidator.InvalidSchemaException.class)
				.hasMessageContaining("archive table claims_history does not exist")
				.hasMessageContaining("CREATE TABLE IF NOT EXISTS claims_history")
				.satisfies((ex) -> assertThat(((SchemaValidator.InvalidSchemaException) ex).getProblems()).hasSize(1)));
	}

	@Test
	void deleteModeNeedsNoArchiveTable() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-delete;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.retention.enabled=true", "idempotent.retention.period=30d",
					"idempotent.retention.mode=delete", "idempotent.retention.late-records=dead-letter",
					"idempotent.retention.include-failed=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(tableExists(context, "IDEMPOTENT_CLAIM_ARCHIVE")).isFalse();
				assertThat(context.getBean(RetentionPolicy.class))
					.isEqualTo(new RetentionPolicy(Duration.ofDays(30), RetentionMode.DELETE, true, 500));
				assertThat(context.getBean(LateRecordGuard.class).policy()).isEqualTo(LateRecordPolicy.DEAD_LETTER);
			});
	}

	@Test
	void theApplicationsBeansAreUsed() {
		this.runner
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:retention-own;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"idempotent.retention.enabled=true", "idempotent.retention.period=30d")
			.withUserConfiguration(OwnBeans.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LateRecordGuard.class).hasSingleBean(RetentionPolicy.class);
				assertThat(context.getBean(LateRecordGuard.class)).isSameAs(context.getBean("ownGuard"));
				assertThat(context.getBean(RetentionPolicy.class).batchSize()).isEqualTo(7);
				assertThat(context.getBean(JdbcRetentionJob.class).policy().batchSize()).isEqualTo(7);
			});
	}

	private static void insert(JdbcTemplate jdbc, String key, LocalDateTime utc) {
		jdbc.update("INSERT INTO idempotent_claim (scope, idempotency_key, status, attempts, created_at, updated_at)"
				+ " VALUES ('g', ?, 1, 1, ?, ?)", key, utc, utc);
	}

	private static int count(JdbcTemplate jdbc, String table) {
		Integer count = jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
		return (count != null) ? count : -1;
	}

	private static boolean tableExists(org.springframework.context.ApplicationContext context, String name) {
		Integer count = new JdbcTemplate(context.getBean(DataSource.class))
			.queryForObject("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = ?", Integer.class, name);
		return count != null && count > 0;
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		@Bean
		LateRecordGuard ownGuard() {
			return new LateRecordGuard(Duration.ofDays(1), LateRecordPolicy.PROCESS, java.time.Clock.systemUTC(),
					RetentionListener.NO_OP, KeyMasker.MASKED);
		}

		@Bean
		RetentionPolicy ownPolicy() {
			return new RetentionPolicy(Duration.ofDays(30), RetentionMode.DELETE, false, 7);
		}

	}

}
