package dev.idempotent.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.audit.Audits;
import dev.idempotent.audit.ClaimTableCheck;
import dev.idempotent.audit.JdbcAudits;
import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.metrics.AuditMeters;
import dev.idempotent.metrics.ClaimTableMeters;
import dev.idempotent.metrics.HitRatioMeters;
import dev.idempotent.metrics.HitRatioMonitor;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static dev.idempotent.testsupport.BootLine.COMPOSITE_METER_REGISTRY;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.METRICS;
import static dev.idempotent.testsupport.BootLine.SIMPLE_METRICS_EXPORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class IdempotentForensicsAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				METRICS, COMPOSITE_METER_REGISTRY,
				SIMPLE_METRICS_EXPORT, IdempotentAutoConfiguration.class,
				IdempotentMetricsAutoConfiguration.class, IdempotentForensicsAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:forensics;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	@Test
	void declaredAuditsTheTableCheckAndTheHitRatioShowInTheirGauges() {
		this.runner
			.withPropertyValues("idempotent.audits.ledger.table=t_forensics_ledger",
					"idempotent.audits.ledger.key-column=order_id", "idempotent.audits.ledger.filter=kind = 'PAY'",
					"idempotent.audits.ledger.interval=10m")
			.run((context) -> {
				assertThat(context).hasSingleBean(Audits.class)
					.hasSingleBean(ClaimTableCheck.class)
					.hasSingleBean(HitRatioMonitor.class)
					.hasSingleBean(AuditMeters.class)
					.hasSingleBean(ClaimTableMeters.class)
					.hasSingleBean(HitRatioMeters.class);
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				jdbc.execute("CREATE TABLE t_forensics_ledger (order_id VARCHAR(64) NOT NULL, kind VARCHAR(8) NOT NULL)");
				jdbc.update("INSERT INTO t_forensics_ledger VALUES ('A', 'PAY'), ('A', 'PAY'), ('B', 'PAY'),"
						+ " ('C', 'REFUND'), ('C', 'REFUND')");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("idempotent.audit.duplicates").tag("audit", "ledger").gauge().value()).isNaN();

				assertThat(context.getBean(Audits.class).run("ledger").duplicatedKeys()).isOne();
				context.getBean(ClaimTableCheck.class).run();
				IdempotentTemplate template = context.getBean(IdempotentTemplate.class);
				template.execute("forensics", "key-1", () -> "done");
				template.execute("forensics", "key-1", () -> "again");

				assertThat(meters.get("idempotent.audit.duplicates").tag("audit", "ledger").gauge().value()).isOne();
				assertThat(meters.get("idempotent.table.rows").tag("status", "failed").gauge().value()).isZero();
				assertThat(meters.get("idempotent.table.rows").tag("status", "stuck").gauge().value()).isZero();
				assertThat(meters.get("idempotent.hit.ratio").tag("scope", "forensics").gauge().value()).isEqualTo(0.5);
				IdempotentAuditScheduler scheduler = context.getBean(IdempotentAuditScheduler.class);
				assertThat(scheduler.isRunning()).isTrue();
				assertThat(scheduler.getTasks()).extracting(IdempotentAuditScheduler.Task::name, IdempotentAuditScheduler.Task::interval)
					.containsExactly(tuple("Audit 'ledger'", Duration.ofMinutes(10)),
							tuple("Idempotency table check", Duration.ofMinutes(5)));
				jdbc.execute("DROP TABLE t_forensics_ledger");
			});
	}

	@Test
	void checksThatAreSwitchedOffAndTheApplicationsOwnAuditsStepAside() {
		Audits own = new JdbcAudits(new SimpleDriverDataSource(), List.of(), Duration.ofSeconds(1), KeyMasker.MASKED,
				Clock.systemUTC());
		this.runner.withPropertyValues("idempotent.table-check.enabled=false", "idempotent.hit-ratio.enabled=false")
			.withBean(Audits.class, () -> own)
			.run((context) -> assertThat(context).doesNotHaveBean(ClaimTableCheck.class)
				.doesNotHaveBean(HitRatioMonitor.class)
				.doesNotHaveBean(ClaimTableMeters.class)
				.doesNotHaveBean(HitRatioMeters.class)
				.getBean(Audits.class)
				.isSameAs(own));
	}

	@Test
	void withoutMicrometerTheChecksStillRun() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
					DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
					IdempotentAutoConfiguration.class, IdempotentForensicsAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:forensics_plain;MODE=MySQL;DB_CLOSE_DELAY=-1",
					"spring.kafka.bootstrap-servers=127.0.0.1:9")
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(HitRatioMonitor.class)
				.hasSingleBean(ClaimTableCheck.class)
				.doesNotHaveBean(AuditMeters.class));
	}

	@Test
	void anAuditOnATableNameThatIsNotAnIdentifierStopsTheApplication() {
		this.runner.withPropertyValues("idempotent.audits.bad.table=t_ledger; DROP TABLE x",
				"idempotent.audits.bad.key-column=order_id")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("Invalid audit 'bad': table 't_ledger; DROP TABLE x'"));
	}

	@Test
	void fingerprintsOnATableWithoutTheColumnStopTheApplicationWithTheAlterToRun() throws Exception {
		String url = "jdbc:h2:mem:forensics_old;MODE=MySQL;DB_CLOSE_DELAY=-1";
		try (Connection connection = DriverManager.getConnection(url, "sa", "");
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE IF NOT EXISTS idempotent_claim (id BIGINT GENERATED BY DEFAULT AS IDENTITY"
					+ " PRIMARY KEY, scope VARCHAR(256) NOT NULL, idempotency_key VARCHAR(256) NOT NULL, status TINYINT"
					+ " NOT NULL, attempts INT NOT NULL, source_topic VARCHAR(249), source_partition INT, source_offset"
					+ " BIGINT, created_at TIMESTAMP(6) NOT NULL, updated_at TIMESTAMP(6) NOT NULL, lease_until"
					+ " TIMESTAMP(6), last_error VARCHAR(1000), CONSTRAINT uk_old UNIQUE (scope, idempotency_key))");
			statement.execute("CREATE INDEX IF NOT EXISTS ix_old_status_updated ON idempotent_claim (status, updated_at)");
		}
		ApplicationContextRunner old = this.runner.withPropertyValues("spring.datasource.url=" + url);
		old.run((context) -> assertThat(context).hasNotFailed());
		old.withPropertyValues("idempotent.fingerprint.enabled=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(SchemaValidator.InvalidSchemaException.class)
				.hasMessageContaining("ALTER TABLE idempotent_claim ADD COLUMN payload_fingerprint VARCHAR(64) NULL"));
	}

	@Test
	void theSchedulerRunsTasksOnTheirIntervalSurvivesFailuresAndStops(CapturedOutput output) {
		AtomicInteger runs = new AtomicInteger();
		AtomicInteger failures = new AtomicInteger();
		IdempotentAuditScheduler scheduler = new IdempotentAuditScheduler(List.of(
				new IdempotentAuditScheduler.Task("counting", Duration.ofMillis(20), runs::incrementAndGet),
				new IdempotentAuditScheduler.Task("failing", Duration.ofMillis(20), () -> {
					failures.incrementAndGet();
					throw new IllegalStateException("database down");
				})));
		scheduler.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 3 && failures.get() >= 3);
		scheduler.stop();
		assertThat(scheduler.isRunning()).isFalse();
		assertThat(output).contains("WARN").contains("failing failed; next run in PT0.02S")
			.contains("database down")
			.doesNotContain("ERROR");
		int after = runs.get();
		await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(1)).until(() -> runs.get() <= after + 1);
	}

}
