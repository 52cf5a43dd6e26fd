package dev.idempotent.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.LeaseResult;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.JdbcLeasedClaimStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retention job, written once and run against every supported database by a small subclass. The JVM runs in
 * UTC+8 and each database session in another zone (see {@link TestDatabases}); rows are written by the claim store
 * with clocks one minute either side of the window's start, so a time compared in any local zone would put them
 * on the wrong side.
 */
public abstract class AbstractRetentionJobContractTest {

	static final Instant NOW = Instant.parse("2026-03-01T00:00:00.000500Z");

	static final Duration PERIOD = Duration.ofDays(7);

	static final Instant OLD = NOW.minus(PERIOD).minusSeconds(60);

	static final Instant RECENT = NOW.minus(PERIOD).plusSeconds(60);

	static final String SCOPE = "retention-group";

	DataSource dataSource;

	JdbcTemplate jdbc;

	SqlDialect dialect;

	TableName table;

	TableName archive;

	TransactionTemplate transactions;

	final RecordingRetentionListener listener = new RecordingRetentionListener();

	/** The database under test. */
	protected abstract DataSource dataSource();

	@BeforeEach
	void createTables() {
		this.dataSource = dataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.dialect = dialect(this.dataSource);
		this.table = createClaimTable(this.dataSource, this.dialect);
		this.archive = this.table.archive();
		SchemaInitializer.archive(this.dataSource, this.archive, this.dialect).initialize();
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
	}

	@AfterEach
	void dropTables() {
		dropTable(this.archive.value());
		dropTable(this.table.value());
	}

	/** The dialect of the database under test: detected; the conformance kit may be told another. */
	protected SqlDialect dialect(DataSource dataSource) {
		return SqlDialect.detect(dataSource);
	}

	/**
	 * Create an idempotency table with a fresh name from the shipped DDL. The conformance kit overrides this and
	 * {@link #dropTable} to keep to tables it created itself.
	 */
	protected TableName createClaimTable(DataSource dataSource, SqlDialect dialect) {
		return TestDatabases.createClaimTable(dataSource, dialect);
	}

	/** Drop a table this test created, if it exists. */
	protected void dropTable(String name) {
		TestDatabases.drop(this.dataSource, name);
	}

	@Test
	void archivesOnlySucceededRowsOlderThanThePeriodWhateverTheTimeZones() {
		claim("old", OLD);
		claim("recent", RECENT);
		markFailed("failed-old", OLD);
		lease("leased-old", OLD);
		Map<String, Object> before = row(this.table, "old");

		int moved = job(RetentionMode.ARCHIVE, false, 10).run();

		assertThat(moved).isOne();
		assertThat(keys(this.table)).containsExactlyInAnyOrder("recent", "failed-old", "leased-old");
		assertThat(keys(this.archive)).containsExactly("old");
		assertThat(row(this.archive, "old")).as("archived unchanged, same id").isEqualTo(before);
		assertThat(this.listener.rows).containsExactly("archived:1");
		assertThat(this.listener.runs).containsExactly(true);
	}

	@Test
	void archivesThePayloadFingerprintWhenFingerprintsAreOn() {
		String fingerprint = "ab".repeat(32);
		this.transactions.execute((status) -> new JdbcClaimStore(this.dataSource, this.table, this.dialect,
				Clock.fixed(OLD, ZoneId.of("Asia/Tokyo")), true)
			.claim(new ClaimRequest(SCOPE, "fingerprinted", new DeliverySource("orders", 0, 42), fingerprint)));
		Map<String, Object> before = row(this.table, "fingerprinted");

		int moved = new JdbcRetentionJob(this.dataSource, this.table, this.archive, this.dialect,
				new RetentionPolicy(PERIOD, RetentionMode.ARCHIVE, false, 10), clock(), this.listener, true)
			.run();

		assertThat(moved).isOne();
		assertThat(row(this.archive, "fingerprinted")).as("archived with its fingerprint").isEqualTo(before)
			.containsValue(fingerprint);
	}

	@Test
	void deletesFailedRowsTooWhenAskedAndNeverRowsInProgress() {
		claim("old", OLD);
		markFailed("failed-old", OLD);
		markFailed("failed-recent", RECENT);
		lease("leased-old", OLD);

		int moved = job(RetentionMode.DELETE, true, 10).run();

		assertThat(moved).isEqualTo(2);
		assertThat(keys(this.table)).containsExactlyInAnyOrder("failed-recent", "leased-old");
		assertThat(keys(this.archive)).as("DELETE does not archive").isEmpty();
		assertThat(this.listener.rows).containsExactly("deleted:2");
	}

	@Test
	void worksInBatchesUntilABatchComesBackShort() {
		claimAll("batch-", 25, OLD);

		int moved = job(RetentionMode.ARCHIVE, false, 10).run();

		assertThat(moved).isEqualTo(25);
		assertThat(this.listener.rows).containsExactly("archived:10", "archived:10", "archived:5");
		assertThat(count(this.table)).isZero();
		assertThat(count(this.archive)).isEqualTo(25);
		assertThat(job(RetentionMode.ARCHIVE, false, 10).run()).as("nothing left").isZero();
	}

	@Test
	void aKeyArchivedAndClaimedAgainByALateReplayIsArchivedAgain() {
		claim("replayed", OLD);
		job(RetentionMode.ARCHIVE, false, 10).run();

		ClaimResult again = claim("replayed", OLD);
		assertThat(again).as("the row is gone, so the replay claims the key afresh").isInstanceOf(ClaimResult.Claimed.class);
		assertThat(job(RetentionMode.ARCHIVE, false, 10).run()).isOne();

		assertThat(keys(this.archive)).containsExactly("replayed", "replayed");
		assertThat(this.jdbc.queryForObject("SELECT COUNT(DISTINCT id) FROM " + this.archive, Integer.class)).isEqualTo(2);
		assertThat(count(this.table)).isZero();
	}

	@Test
	void rowsLockedElsewhereAreSkippedNotWaitedForAndTakenByALaterRun() throws Exception {
		claimAll("locked-", 30, OLD);
		List<Long> ids = this.jdbc.queryForList("SELECT id FROM " + this.table + " ORDER BY id", Long.class);
		CountDownLatch locked = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ExecutorService holder = Executors.newSingleThreadExecutor();
		try {
			Future<?> holding = holder.submit(() -> this.transactions.executeWithoutResult((status) -> {
				this.jdbc.queryForList("SELECT id FROM " + this.table + " WHERE id IN (" + ids.get(0) + ", " + ids.get(1)
						+ ") FOR UPDATE");
				locked.countDown();
				awaitQuietly(release);
			}));
			assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();

			assertThat(job(RetentionMode.ARCHIVE, false, 7).run()).isEqualTo(28);
			assertThat(keys(this.table)).containsExactlyInAnyOrder("locked-0", "locked-1");

			release.countDown();
			holding.get(30, TimeUnit.SECONDS);
		}
		finally {
			release.countDown();
			holder.shutdownNow();
		}
		assertThat(job(RetentionMode.ARCHIVE, false, 7).run()).isEqualTo(2);
		assertThat(count(this.archive)).isEqualTo(30);
	}

	@Test
	void jobsRunningAtOnceArchiveEveryEligibleRowExactlyOnceAndTouchNothingElse() throws Exception {
		int eligible = 2000;
		claimAll("many-", eligible, OLD);
		claimAll("young-", 100, RECENT);
		markFailed("failed-old", OLD);
		List<Map<String, Object>> originals = this.jdbc.queryForList("SELECT * FROM " + this.table
				+ " WHERE idempotency_key LIKE 'many-%' ORDER BY id");
		int jobs = 4;
		CyclicBarrier everyJobHasABatch = new CyclicBarrier(jobs);
		ExecutorService pool = Executors.newFixedThreadPool(jobs);
		try {
			List<Future<Integer>> runs = new ArrayList<>();
			for (int i = 0; i < jobs; i++) {
				RetentionListener waitForTheOthers = new RetentionListener() {

					private boolean waited;

					@Override
					public void onRows(RetentionMode mode, int rows) {
						if (!this.waited) {
							this.waited = true;
							awaitQuietly(everyJobHasABatch);
						}
					}

				};
				JdbcRetentionJob job = new JdbcRetentionJob(this.dataSource, this.table, this.archive, this.dialect,
						new RetentionPolicy(PERIOD, RetentionMode.ARCHIVE, false, 25), clock(), waitForTheOthers);
				runs.add(pool.submit(job::run));
			}
			List<Integer> moved = new ArrayList<>();
			for (Future<Integer> run : runs) {
				moved.add(run.get(120, TimeUnit.SECONDS));
			}
			assertThat(moved).as("every job took part").allSatisfy((rows) -> assertThat(rows).isPositive());
			assertThat(moved.stream().mapToInt(Integer::intValue).sum()).isEqualTo(eligible);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.jdbc.queryForList("SELECT * FROM " + this.archive + " ORDER BY id")).isEqualTo(originals);
		assertThat(count(this.table)).isEqualTo(101);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table
				+ " WHERE idempotency_key LIKE 'young-%' OR idempotency_key = 'failed-old'", Integer.class)).isEqualTo(101);
	}

	@Test
	void claimsOfOldKeysRacingTheJobAreHitsOnSucceededRowsOrProcessedNeverSkippedAsFailed() throws Exception {
		int keys = 300;
		claimAll("done-", keys, OLD);
		for (int i = 0; i < keys; i++) {
			markFailed("failed-" + i, OLD);
		}
		TransactionalClaimExecutor claims = new TransactionalClaimExecutor(storeAt(NOW),
				new DataSourceTransactionManager(this.dataSource), ClaimListener.NO_OP, 20);
		JdbcRetentionJob job = new JdbcRetentionJob(this.dataSource, this.table, this.archive, this.dialect,
				new RetentionPolicy(PERIOD, RetentionMode.ARCHIVE, true, 5), clock(), this.listener);
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try {
			Future<Integer> removal = pool.submit(job::run);
			List<Future<List<String>>> claimers = new ArrayList<>();
			for (String prefix : List.of("done-", "failed-")) {
				claimers.add(pool.submit(() -> {
					List<String> wrong = new ArrayList<>();
					for (int i = 0; i < keys; i++) {
						ClaimOutcome<String> outcome = claim(claims, request(prefix + i));
						boolean right = (outcome instanceof ClaimOutcome.Processed)
								|| (prefix.equals("done-") && outcome instanceof ClaimOutcome.Skipped<String> skipped
										&& skipped.hit().status() == ClaimStatus.SUCCEEDED);
						if (!right) {
							wrong.add(prefix + i + "=" + outcome);
						}
					}
					return wrong;
				}));
			}
			for (Future<List<String>> claimer : claimers) {
				assertThat(claimer.get(120, TimeUnit.SECONDS)).as("a FAILED key is never skipped").isEmpty();
			}
			int removed = removal.get(120, TimeUnit.SECONDS);
			assertThat(removed).isEqualTo(count(this.archive));
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE status = 2", Integer.class))
			.as("every FAILED key was claimed again or archived").isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.archive + " WHERE idempotency_key IN (SELECT"
				+ " idempotency_key FROM " + this.table + " WHERE updated_at < ?) ", Integer.class,
				java.time.LocalDateTime.ofInstant(NOW, java.time.ZoneOffset.UTC)))
			.as("no row both archived and still old in the table").isZero();
	}

	@Test
	void theStartupCheckReportsAMissingArchiveTable() {
		SchemaValidator validator = new SchemaValidator(this.dataSource, this.table, this.dialect, 128);
		assertThat(validator.withArchive(this.archive).problems()).isEmpty();

		TableName missing = new TableName(this.table.value() + "_nope");
		assertThat(validator.withArchive(missing).problems()).containsExactly("archive table " + missing
				+ " does not exist: idempotent.retention.mode=archive moves rows older than the retention period there"
				+ " (create it from sql/schema-" + this.dialect.id() + "-archive.sql, or set"
				+ " idempotent.retention.archive-table-name)");
	}

	@Test
	void eachBatchSelectionReadsTheStatusAndTimeIndexNotTheTable() {
		// 2,000 young rows (1% FAILED) in one statement, so that the planners see a table worth an index
		String recent = "'" + java.time.LocalDateTime.ofInstant(RECENT, java.time.ZoneOffset.UTC).toString().replace('T', ' ')
				+ "'";
		java.util.StringJoiner values = new java.util.StringJoiner(", ");
		for (int i = 0; i < 2000; i++) {
			values.add("('" + SCOPE + "', 'young-" + i + "', " + ((i % 100 == 0) ? 2 : 1) + ", 1, " + recent + ", " + recent + ")");
		}
		this.jdbc.update("INSERT INTO " + this.table + " (scope, idempotency_key, status, attempts, created_at, updated_at)"
				+ " VALUES " + values);
		analyze();
		RetentionStatements statements = RetentionStatements.of(this.table, this.archive, this.dialect, true, false);
		assertThat(statements.lockBatches()).hasSize(2);
		for (String lockBatch : statements.lockBatches()) {
			String plan = String.join("\n", this.jdbc.query("EXPLAIN " + lockBatch, (ps) -> {
				this.dialect.bindTime(ps, 1, java.time.LocalDateTime.ofInstant(NOW.minus(PERIOD), java.time.ZoneOffset.UTC));
				ps.setInt(2, 500);
			}, (rs, row) -> planLine(rs)));
			assertThat(plan.toLowerCase(java.util.Locale.ROOT)).as(lockBatch + "\n" + plan)
				.contains(("ix_" + this.table.simpleName() + "_status_updated").toLowerCase(java.util.Locale.ROOT));
		}
	}

	@Test
	void theStartupCheckAsksForTheStatusAndTimeIndexWithTheStatementThatAddsIt() {
		SchemaValidator validator = new SchemaValidator(this.dataSource, this.table, this.dialect, 128);
		assertThat(validator.problems()).isEmpty();
		String index = "ix_" + this.table.simpleName() + "_status_updated";
		this.jdbc.execute(this.dialect.needsBinaryCollation() ? "DROP INDEX " + index + " ON " + this.table
				: "DROP INDEX " + index);

		List<String> problems = validator.problems();
		assertThat(problems).hasSize(1);
		assertThat(problems.get(0)).startsWith("no index leads with (status, updated_at)")
			.endsWith("add it with: CREATE INDEX " + index + " ON " + this.table + " (status, updated_at)");

		this.jdbc.execute(problems.get(0).substring(problems.get(0).indexOf("CREATE INDEX")));
		assertThat(validator.problems()).isEmpty();
	}

	@Test
	void initializingTheSchemaAddsTheStatusAndTimeIndexToATableCreatedBeforeIt() {
		org.junit.jupiter.api.Assumptions.assumeFalse(this.dialect.id().equals("mysql"),
				"MySQL has no CREATE INDEX IF NOT EXISTS: its DDL declares the index in CREATE TABLE only");
		String index = "ix_" + this.table.simpleName() + "_status_updated";
		this.jdbc.execute(this.dialect.needsBinaryCollation() ? "DROP INDEX " + index + " ON " + this.table
				: "DROP INDEX " + index);
		SchemaValidator validator = new SchemaValidator(this.dataSource, this.table, this.dialect, 128);
		assertThat(validator.problems()).hasSize(1);

		new SchemaInitializer(this.dataSource, this.table, this.dialect).initialize();

		assertThat(validator.problems()).isEmpty();
	}

	@Test
	void archivesIntoTheTimePartitionedArchiveWhoseMonthsAnOperatorDrops() throws Exception {
		org.springframework.core.io.ClassPathResource ddl = new org.springframework.core.io.ClassPathResource(
				"dev/idempotent/jdbc/schema/schema-" + this.dialect.id() + "-archive-partitioned.sql");
		org.junit.jupiter.api.Assumptions.assumeTrue(ddl.exists(), "no partitioned archive for " + this.dialect.id());
		TestDatabases.drop(this.dataSource, this.archive.value());
		String script = new String(ddl.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
			.replace("idempotent_claim_archive", this.archive.value());
		this.jdbc.execute((org.springframework.jdbc.core.ConnectionCallback<Object>) (connection) -> {
			org.springframework.jdbc.datasource.init.ScriptUtils.executeSqlScript(connection,
					new org.springframework.core.io.ByteArrayResource(script.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
			return null;
		});
		claim("old", OLD);
		claim("recent", RECENT);
		Map<String, Object> before = row(this.table, "old");
		assertThat(new SchemaValidator(this.dataSource, this.table, this.dialect, 128).withArchive(this.archive).problems())
			.isEmpty();

		assertThat(job(RetentionMode.ARCHIVE, false, 10).run()).isOne();
		assertThat(row(this.archive, "old")).as("archived unchanged, same id").isEqualTo(before);

		// the runbook's monthly clean-up: OLD is in February 2026
		this.jdbc.execute(this.dialect.needsBinaryCollation() ? "ALTER TABLE " + this.archive + " DROP PARTITION p2026_02"
				: "DROP TABLE " + this.archive + "_2026_02");
		assertThat(count(this.archive)).isZero();
		assertThat(keys(this.table)).containsExactly("recent");
	}

	/** Refresh the planner's statistics of the idempotency table. */
	void analyze() {
		switch (this.dialect) {
			case MYSQL, MARIADB -> this.jdbc.execute("ANALYZE TABLE " + this.table);
			case POSTGRESQL -> this.jdbc.execute("ANALYZE " + this.table);
			case H2 -> this.jdbc.execute("ANALYZE TABLE " + this.table);
		}
	}

	/** One row of an EXPLAIN, every column of it (MySQL's plan is a table, PostgreSQL's and H2's text). */
	static String planLine(java.sql.ResultSet rs) throws java.sql.SQLException {
		StringBuilder line = new StringBuilder();
		for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
			line.append(rs.getString(i)).append(' ');
		}
		return line.toString();
	}

	static ClaimOutcome<String> claim(TransactionalClaimExecutor claims, ClaimRequest request) {
		try {
			return claims.execute(request, () -> "ran");
		}
		catch (Throwable ex) {
			throw new IllegalStateException("The claim of " + request.key() + " failed", ex);
		}
	}

	JdbcRetentionJob job(RetentionMode mode, boolean includeFailed, int batchSize) {
		return new JdbcRetentionJob(this.dataSource, this.table, this.archive, this.dialect,
				new RetentionPolicy(PERIOD, mode, includeFailed, batchSize), clock(), this.listener);
	}

	/** The job's clock: NOW, in a zone that is neither the JVM's nor the session's. */
	static Clock clock() {
		return Clock.fixed(NOW, ZoneId.of("America/Sao_Paulo"));
	}

	JdbcClaimStore storeAt(Instant at) {
		return new JdbcClaimStore(this.dataSource, this.table, this.dialect, Clock.fixed(at, ZoneId.of("Asia/Tokyo")));
	}

	ClaimResult claim(String key, Instant at) {
		return this.transactions.execute((status) -> storeAt(at).claim(request(key)));
	}

	void claimAll(String prefix, int count, Instant at) {
		List<ClaimRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(request(prefix + i));
		}
		this.transactions.executeWithoutResult((status) -> storeAt(at).claimAll(requests));
	}

	void markFailed(String key, Instant at) {
		this.transactions.executeWithoutResult((status) -> storeAt(at).markFailed(request(key), 1, "boom"));
	}

	void lease(String key, Instant at) {
		JdbcLeasedClaimStore leases = new JdbcLeasedClaimStore(this.dataSource, this.table, this.dialect,
				Clock.fixed(at, ZoneId.of("Asia/Tokyo")));
		LeaseResult result = this.transactions.execute((status) -> leases.claimLease(request(key), Duration.ofMinutes(5)));
		assertThat(result).isInstanceOf(LeaseResult.Acquired.class);
	}

	static ClaimRequest request(String key) {
		return new ClaimRequest(SCOPE, key, new DeliverySource("orders", 0, 42));
	}

	List<String> keys(TableName table) {
		return this.jdbc.queryForList("SELECT idempotency_key FROM " + table + " ORDER BY id", String.class);
	}

	Map<String, Object> row(TableName table, String key) {
		return this.jdbc.queryForMap("SELECT * FROM " + table + " WHERE idempotency_key = ?", key);
	}

	int count(TableName table) {
		Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
		return (count != null) ? count : -1;
	}

	static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(60, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static void awaitQuietly(CyclicBarrier barrier) {
		try {
			barrier.await(60, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("The other jobs did not get a batch", ex);
		}
	}

	/** Remembers what the job reported. */
	static final class RecordingRetentionListener implements RetentionListener {

		final List<String> rows = new CopyOnWriteArrayList<>();

		final List<Boolean> runs = new CopyOnWriteArrayList<>();

		final AtomicInteger late = new AtomicInteger();

		@Override
		public void onRows(RetentionMode mode, int rows) {
			this.rows.add(mode.action() + ":" + rows);
		}

		@Override
		public void onRun(boolean success) {
			this.runs.add(success);
		}

		@Override
		public void onLateRecord(LateRecordPolicy policy) {
			this.late.incrementAndGet();
		}

	}

}
