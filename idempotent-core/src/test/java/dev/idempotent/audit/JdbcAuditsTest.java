package dev.idempotent.audit;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.testsupport.LogRecorder;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reconciliation audits and the idempotency-table checks on MariaDB, PostgreSQL and H2 (sessions in a time zone
 * other than the JVM's, see {@link TestDatabases}).
 */
class JdbcAuditsTest {

	private static final Instant NOW = Instant.parse("2026-03-04T05:06:07.123456Z");

	private DataSource dataSource;

	private String ledger;

	private TableName claims;

	static Stream<Arguments> databases() {
		return Stream.of(Arguments.of("MariaDB", (Supplier<DataSource>) TestDatabases::mariadb),
				Arguments.of("PostgreSQL", (Supplier<DataSource>) TestDatabases::postgresql),
				Arguments.of("H2", (Supplier<DataSource>) TestDatabases::h2));
	}

	@AfterEach
	void dropTables() {
		if (this.ledger != null) {
			TestDatabases.drop(this.dataSource, this.ledger);
		}
		if (this.claims != null) {
			TestDatabases.drop(this.dataSource, this.claims.value());
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void anAuditCountsDuplicatedKeysOfTheFilteredRowsWithABoundedSortedSample(String name, Supplier<DataSource> db) {
		JdbcTemplate jdbc = ledger(db.get());
		for (int i = 1; i <= 7; i++) {
			credit(jdbc, "ORD-000" + i, "PAY_CREDIT", 2);
		}
		credit(jdbc, "ORD-0100", "PAY_CREDIT", 1);
		credit(jdbc, "ORD-0200", "REFUND", 3);
		JdbcAudits audits = audits(new AuditDefinition("ledger", this.ledger, "order_id", "biz_type = 'PAY_CREDIT'",
				Duration.ofMinutes(5)));
		assertThat(audits.lastResult("ledger")).isEmpty();

		AuditResult result;
		try (LogRecorder log = LogRecorder.of(JdbcAudits.LOGGER_NAME)) {
			result = audits.run("ledger");
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("Audit 'ledger' found 7 business key(s) written more than once in " + this.ledger + ".order_id",
						"OR****01#", "Audit found duplicates")
				.doesNotContain("ORD-0001");
		}

		assertThat(result.duplicatedKeys()).isEqualTo(7);
		assertThat(result.sampleKeys()).containsExactly("ORD-0001", "ORD-0002", "ORD-0003", "ORD-0004", "ORD-0005");
		assertThat(result.ranAt()).isEqualTo(NOW);
		assertThat(audits.lastResult("ledger")).contains(result);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void aCleanAuditFindsNothingAndLogsNoWarning(String name, Supplier<DataSource> db) {
		JdbcTemplate jdbc = ledger(db.get());
		credit(jdbc, "ORD-1", "PAY_CREDIT", 1);
		credit(jdbc, "ORD-2", "REFUND", 2);
		JdbcAudits audits = audits(new AuditDefinition("credits", this.ledger, "order_id", "biz_type <> 'REFUND'",
				Duration.ofMinutes(5)), new AuditDefinition("all", this.ledger, "order_id", null, Duration.ofMinutes(5)));

		try (LogRecorder log = LogRecorder.of(JdbcAudits.LOGGER_NAME)) {
			assertThat(audits.run("credits").duplicatedKeys()).isZero();
			assertThat(audits.lastResult("credits").orElseThrow().sampleKeys()).isEmpty();
			assertThat(log.messages(Level.WARN)).isEmpty();
			assertThat(audits.run("all").duplicatedKeys()).isEqualTo(1);
		}
		assertThat(audits.names()).containsExactlyInAnyOrder("credits", "all");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void theTableCheckCountsFailedAndStuckRowsAgainstTheUtcClockAndWarnsOnlyWhenTheyRise(String name,
			Supplier<DataSource> db) {
		this.dataSource = db.get();
		SqlDialect dialect = SqlDialect.detect(this.dataSource);
		this.claims = TestDatabases.createClaimTable(this.dataSource, dialect);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		row(jdbc, dialect, "stuck-key-0001", 0, NOW.minusSeconds(60));
		row(jdbc, dialect, "live-lease-0001", 0, NOW.plusSeconds(60));
		row(jdbc, dialect, "done", 1, null);
		row(jdbc, dialect, "failed-1", 2, null);
		row(jdbc, dialect, "failed-2", 2, null);
		ClaimTableCheck check = new ClaimTableCheck(this.dataSource, this.claims, dialect, Duration.ofSeconds(10),
				KeyMasker.MASKED, Clock.fixed(NOW, ZoneId.of("Asia/Shanghai")));
		assertThat(check.lastCounts()).isNull();

		try (LogRecorder log = LogRecorder.of(JdbcAudits.LOGGER_NAME)) {
			ClaimTableCounts first = check.run();
			assertThat(first.failed()).isEqualTo(2);
			assertThat(first.stuck()).isEqualTo(1);
			assertThat(first.stuckSampleKeys()).containsExactly("stuck-key-0001");
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("1 row(s) of " + this.claims + " are PROCESSING with an expired lease", "st**********01#",
						"Stuck idempotency rows");

			check.run();
			assertThat(log.messages(Level.WARN)).as("nothing rose").hasSize(1);

			row(jdbc, dialect, "failed-3", 2, null);
			jdbc.update("DELETE FROM " + this.claims + " WHERE idempotency_key = 'stuck-key-0001'");
			ClaimTableCounts third = check.run();
			assertThat(third.failed()).isEqualTo(3);
			assertThat(third.stuck()).isZero();
			assertThat(log.messages(Level.WARN)).hasSize(2).last().asString()
				.contains("1 more FAILED row(s) in " + this.claims + " since the last check (3 now)");
			assertThat(log.messages(Level.INFO)).singleElement().asString().contains("No idempotency rows");
		}
		assertThat(check.lastCounts()).isNotNull().extracting(ClaimTableCounts::failed).isEqualTo(3L);
	}

	@Test
	void definitionsRefuseIdentifiersThatAreNotPlainAndFiltersWithStatementSeparators() {
		Duration interval = Duration.ofMinutes(1);
		assertThatThrownBy(() -> new AuditDefinition("a", "t; DROP TABLE x", "k", null, interval))
			.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
		assertThatThrownBy(() -> new AuditDefinition("a", "t", "k, (SELECT 1)", null, interval))
			.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key column");
		assertThatThrownBy(() -> new AuditDefinition("a", "t", "k", "1 = 1; DELETE FROM t", interval))
			.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("filter");
		assertThatThrownBy(() -> new AuditDefinition("a", "t", "k", "1 = 1 -- x", interval))
			.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("filter");
		assertThatThrownBy(() -> new AuditDefinition("a", "t", "k", null, Duration.ZERO))
			.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interval");
		assertThat(new AuditDefinition("a", "ledger.t_ledger", "order_id", "  ", interval).filter()).isNull();
	}

	@Test
	void unknownAuditNamesAreRefused() {
		JdbcAudits audits = new JdbcAudits(TestDatabases.h2(), List.of(), Duration.ofSeconds(5), KeyMasker.MASKED,
				Clock.systemUTC());
		assertThatThrownBy(() -> audits.run("nope")).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("No audit named 'nope'");
		assertThatThrownBy(() -> audits.lastResult("nope")).isInstanceOf(IllegalArgumentException.class);
	}

	@org.junit.jupiter.api.Test
	void runsOfOneAuditNeverOverlapAndCallersWaitingForALaterRunShareItsResult() throws Exception {
		JdbcTemplate jdbc = ledger(TestDatabases.mariadb());
		credit(jdbc, "ORD-1", "PAY_CREDIT", 2);
		// a slow audit: MariaDB's SLEEP in the filter holds each run for about 0.4 s
		JdbcAudits audits = audits(new AuditDefinition("slow", this.ledger, "order_id", "SLEEP(0.2) = 0",
				Duration.ofMinutes(5)));
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
		try {
			java.util.concurrent.Future<AuditResult> first = pool.submit(() -> audits.run("slow"));
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
						+ " WHERE INFO LIKE '%SLEEP(0.2)%' AND INFO NOT LIKE '%PROCESSLIST%'", Integer.class) == 1);
			List<java.util.concurrent.Future<AuditResult>> waiting = new java.util.ArrayList<>();
			for (int i = 0; i < 3; i++) {
				waiting.add(pool.submit(() -> audits.run("slow")));
			}
			java.util.Set<AuditResult> results = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
			results.add(first.get(30, java.util.concurrent.TimeUnit.SECONDS));
			for (java.util.concurrent.Future<AuditResult> result : waiting) {
				results.add(result.get(30, java.util.concurrent.TimeUnit.SECONDS));
			}
			assertThat(results).as("the first run, and one run for the three callers that waited for it").hasSize(2)
				.allSatisfy((result) -> assertThat(result.duplicatedKeys()).isOne());
		}
		finally {
			pool.shutdownNow();
		}
	}

	private JdbcAudits audits(AuditDefinition... definitions) {
		return new JdbcAudits(this.dataSource, List.of(definitions), Duration.ofSeconds(10), KeyMasker.MASKED,
				Clock.fixed(NOW, ZoneOffset.UTC));
	}

	private JdbcTemplate ledger(DataSource dataSource) {
		this.dataSource = dataSource;
		this.ledger = "aud_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE TABLE " + this.ledger + " (id BIGINT NOT NULL PRIMARY KEY, order_id VARCHAR(64) NOT NULL,"
				+ " biz_type VARCHAR(32) NOT NULL)");
		return jdbc;
	}

	private void credit(JdbcTemplate jdbc, String orderId, String type, int times) {
		for (int i = 0; i < times; i++) {
			jdbc.update("INSERT INTO " + this.ledger + " (id, order_id, biz_type) VALUES (?, ?, ?)",
					ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE), orderId, type);
		}
	}

	private void row(JdbcTemplate jdbc, SqlDialect dialect, String key, int status, Instant leaseUntil) {
		LocalDateTime now = LocalDateTime.ofInstant(NOW, ZoneOffset.UTC);
		jdbc.update("INSERT INTO " + this.claims + " (scope, idempotency_key, status, attempts, created_at, updated_at,"
				+ " lease_until) VALUES ('ledger', ?, ?, 1, ?, ?, ?)", (ps) -> {
					ps.setString(1, key);
					ps.setInt(2, status);
					dialect.bindTime(ps, 3, now);
					dialect.bindTime(ps, 4, now);
					if (leaseUntil != null) {
						dialect.bindTime(ps, 5, LocalDateTime.ofInstant(leaseUntil, ZoneOffset.UTC));
					}
					else {
						ps.setTimestamp(5, (Timestamp) null);
					}
				});
	}

}
