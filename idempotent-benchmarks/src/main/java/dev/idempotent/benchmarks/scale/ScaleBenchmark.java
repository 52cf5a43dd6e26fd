package dev.idempotent.benchmarks.scale;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.audit.ClaimTableCheck;
import dev.idempotent.benchmarks.Options;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.retention.JdbcRetentionJob;
import dev.idempotent.retention.RetentionListener;
import dev.idempotent.retention.RetentionMode;
import dev.idempotent.retention.RetentionPolicy;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The scale benchmark of the idempotency table (docs/scale.md). For one database, in a database of its own
 * ({@code scale}, created if missing), it fills table {@code scale_claim} to each size in turn with {@link ScaleFill},
 * then measures at that size: single claims (1 thread for latency, 4 for throughput), batch claims of 100 keys,
 * hits, bytes per row from the database's statistics, the table check and the FAILED page of the endpoint, one
 * retention run with nothing due (5 runs) and one with 1% of the rows due while 2 threads claim. Prints one block of
 * results per size and drops its tables at the end unless {@code --keep}. Arguments:
 * {@code --db=mariadb|postgresql --sizes=1000000,10000000,50000000 [--url=jdbc:...] [--user=] [--password=]
 * [--layout=surrogate|natural] [--retention-batch=500] [--keep]}. The natural layout (MariaDB only) makes (scope, idempotency_key) the
 * primary key and id a unique key.
 */
public final class ScaleBenchmark {

	private static final int SINGLE = 2000;

	private static final int BATCHES = 100;

	private static final int BATCH = 100;

	private final SqlDialect dialect;

	private final HikariDataSource dataSource;

	private final JdbcTemplate jdbc;

	private final TableName table;

	private final TransactionalClaimExecutor claims;

	private final DeliverySource source = new DeliverySource("payments", 3, 42);

	private final int retentionBatch;

	private ScaleBenchmark(SqlDialect dialect, HikariDataSource dataSource, TableName table, int retentionBatch) {
		this.dialect = dialect;
		this.retentionBatch = retentionBatch;
		this.table = table;
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.claims = new TransactionalClaimExecutor(
				new JdbcClaimStore(dataSource, this.table, dialect, Clock.systemUTC()),
				new DataSourceTransactionManager(dataSource), ClaimListener.NO_OP, 20);
	}

	public static void main(String[] args) throws Throwable {
		Map<String, String> options = Options.parse(args);
		SqlDialect dialect = SqlDialect.fromId(options.getOrDefault("db", "mariadb"));
		createDatabase(dialect, options);
		try (HikariDataSource dataSource = pool(dialect, options, url(dialect, options, "scale"))) {
			ScaleBenchmark benchmark = new ScaleBenchmark(dialect, dataSource,
					new TableName(options.getOrDefault("table", "scale_claim")), Integer.parseInt(
							options.getOrDefault("retention-batch", String.valueOf(RetentionPolicy.DEFAULT_BATCH_SIZE))));
			List<Long> sizes = new ArrayList<>();
			for (String size : options.getOrDefault("sizes", "1000000,10000000").split(",")) {
				sizes.add(Long.parseLong(size.trim()));
			}
			benchmark.run(sizes, options.getOrDefault("layout", "surrogate"), options.containsKey("keep"));
		}
	}

	private void run(List<Long> sizes, String layout, boolean keep) throws Throwable {
		createTables(layout);
		ScaleFill fill = new ScaleFill(this.jdbc, this.table, this.dialect);
		long filled = 0;
		try {
			for (long size : sizes) {
				long start = System.nanoTime();
				fill.fill(filled + 1, size);
				filled = size;
				print("%n## %s, %s layout, %,d rows (filled in %.0f s; load average %s)%n", this.dialect.id(), layout,
						size, seconds(start), loadAverage());
				measure(size);
			}
		}
		finally {
			if (!keep) {
				this.jdbc.execute("DROP TABLE IF EXISTS " + this.table.archive());
				this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
			}
		}
	}

	private void createTables(String layout) {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table.archive());
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
		if (layout.equals("natural")) {
			String ddl = new SchemaInitializer(this.dataSource, this.table, this.dialect).ddl()
				.replace("PRIMARY KEY (id),", "PRIMARY KEY (scope, idempotency_key), UNIQUE KEY uk_" + this.table.simpleName()
						+ "_id (id),")
				.replaceAll(",\\s*UNIQUE KEY uk_" + this.table.simpleName() + "_scope_key \\(scope, idempotency_key\\)", "");
			this.jdbc.execute((org.springframework.jdbc.core.ConnectionCallback<Object>) (connection) -> {
				org.springframework.jdbc.datasource.init.ScriptUtils.executeSqlScript(connection,
						new org.springframework.core.io.ByteArrayResource(ddl.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
				return null;
			});
		}
		else {
			new SchemaInitializer(this.dataSource, this.table, this.dialect).initialize();
		}
		SchemaInitializer.archive(this.dataSource, this.table.archive(), this.dialect).initialize();
	}

	private void measure(long size) throws Throwable {
		singleClaims();
		batchClaims();
		hits();
		pagesPerLookup();
		bytesPerRow(size);
		operations();
		retention(size);
		print("(load average at the end: %s)%n", loadAverage());
	}

	private void singleClaims() throws Exception {
		claimSingle(200, 1);
		Latencies latencies = claimSingle(SINGLE, 1);
		print("single claim, 1 thread: p50 %.2f ms, p99 %.2f ms%n", latencies.percentileMillis(50),
				latencies.percentileMillis(99));
		long start = System.nanoTime();
		Latencies four = claimSingle(SINGLE, 4);
		print("single claim, 4 threads: %,.0f claims/s (p50 %.2f ms, p99 %.2f ms)%n", 4 * SINGLE / seconds(start),
				four.percentileMillis(50), four.percentileMillis(99));
	}

	private Latencies claimSingle(int perThread, int threads) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Latencies>> runs = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				runs.add(pool.submit(() -> {
					Latencies latencies = new Latencies();
					for (int i = 0; i < perThread; i++) {
						ClaimRequest request = request(UUID.randomUUID().toString());
						long start = System.nanoTime();
						ClaimOutcome<String> outcome = claim(request);
						latencies.add(System.nanoTime() - start);
						require(outcome instanceof ClaimOutcome.Processed, "a new key was not claimed: " + outcome);
					}
					return latencies;
				}));
			}
			Latencies all = new Latencies();
			for (Future<Latencies> run : runs) {
				all.addAll(run.get(30, TimeUnit.MINUTES));
			}
			return all;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private void batchClaims() throws Throwable {
		Latencies latencies = new Latencies();
		long start = System.nanoTime();
		for (int b = 0; b < BATCHES; b++) {
			List<ClaimRequest> requests = new ArrayList<>();
			for (int i = 0; i < BATCH; i++) {
				requests.add(request(UUID.randomUUID().toString()));
			}
			long begin = System.nanoTime();
			this.claims.executeBatch(requests, (claimed) -> {
				require(claimed.size() == BATCH, "only " + claimed.size() + " of a batch were claimed");
				return "done";
			});
			latencies.add(System.nanoTime() - begin);
		}
		print("batch claim of %d keys, 1 thread: p50 %.2f ms, p99 %.2f ms, %,.0f claims/s%n", BATCH,
				latencies.percentileMillis(50), latencies.percentileMillis(99), BATCHES * BATCH / seconds(start));
	}

	private void hits() throws Throwable {
		long maxId = this.jdbc.queryForObject("SELECT MAX(id) FROM " + this.table, Long.class);
		List<ClaimRequest> existing = new ArrayList<>();
		while (existing.size() < SINGLE) {
			long id = 1 + ThreadLocalRandom.current().nextLong(maxId);
			this.jdbc.query("SELECT scope, idempotency_key FROM " + this.table + " WHERE id = ? AND status = 1", (rs) -> {
				existing.add(new ClaimRequest(rs.getString(1), rs.getString(2), this.source));
			}, id);
		}
		Latencies latencies = new Latencies();
		for (ClaimRequest request : existing) {
			long start = System.nanoTime();
			ClaimOutcome<String> outcome = claim(request);
			latencies.add(System.nanoTime() - start);
			require(outcome instanceof ClaimOutcome.Skipped, "an existing key was not a hit: " + outcome);
		}
		print("hit (existing key), 1 thread: p50 %.2f ms, p99 %.2f ms%n", latencies.percentileMillis(50),
				latencies.percentileMillis(99));
	}

	/**
	 * Pages (buffers) the database touches to look one key up by (scope, key), as its own statistics count them
	 * (MariaDB: ANALYZE FORMAT=JSON r_engine_stats.pages_accessed; PostgreSQL: EXPLAIN (ANALYZE, BUFFERS)): the depth
	 * of the B-trees a claim descends, which does not depend on how loaded the machine is.
	 */
	private void pagesPerLookup() {
		long maxId = this.jdbc.queryForObject("SELECT MAX(id) FROM " + this.table, Long.class);
		double existing = 0;
		double absent = 0;
		boolean absentCounted = true;
		int samples = 100;
		for (int i = 0; i < samples; i++) {
			List<Map<String, Object>> rows = List.of();
			while (rows.isEmpty()) {
				rows = this.jdbc.queryForList("SELECT scope, idempotency_key FROM " + this.table + " WHERE id = ?",
						1 + ThreadLocalRandom.current().nextLong(maxId));
			}
			existing += pages((String) rows.get(0).get("scope"), (String) rows.get(0).get("idempotency_key"));
			long absentPages = pages(ScaleFill.SCOPES.get(i % 4), UUID.randomUUID().toString());
			absentCounted &= absentPages >= 0;
			absent += absentPages;
		}
		print("pages per key lookup (mean of %d): existing key %.1f, absent key %s%n", samples, existing / samples,
				absentCounted ? String.format("%.1f", absent / samples) : "not reported by the database");
	}

	private long pages(String scope, String key) {
		boolean postgres = this.dialect == SqlDialect.POSTGRESQL;
		String sql = (postgres ? "EXPLAIN (ANALYZE, BUFFERS) " : "ANALYZE FORMAT=JSON ")
				+ "SELECT status, created_at FROM " + this.table + " WHERE scope = ? AND idempotency_key = ?";
		String plan = String.join("\n", this.jdbc.queryForList(sql, String.class, scope, key));
		java.util.regex.Matcher matcher = java.util.regex.Pattern
			.compile(postgres ? "Buffers: shared((?: \\w+=\\d+)+)" : "\"pages_accessed\": (\\d+)")
			.matcher(plan);
		if (!matcher.find()) {
			return -1;
		}
		if (!postgres) {
			return Long.parseLong(matcher.group(1));
		}
		long pages = 0;
		for (String counter : matcher.group(1).trim().split(" ")) {
			pages += Long.parseLong(counter.substring(counter.indexOf('=') + 1));
		}
		return pages;
	}

	private void bytesPerRow(long size) {
		long data;
		long indexes;
		if (this.dialect == SqlDialect.POSTGRESQL) {
			data = this.jdbc.queryForObject("SELECT pg_table_size('" + this.table + "')", Long.class);
			indexes = this.jdbc.queryForObject("SELECT pg_indexes_size('" + this.table + "')", Long.class);
		}
		else {
			this.jdbc.execute("ANALYZE TABLE " + this.table);
			Map<String, Object> row = this.jdbc.queryForMap("SELECT data_length, index_length FROM information_schema.TABLES"
					+ " WHERE table_schema = DATABASE() AND table_name = ?", this.table.value());
			data = ((Number) row.get("data_length")).longValue();
			indexes = ((Number) row.get("index_length")).longValue();
		}
		print("size: data %,d MB, indexes %,d MB; per row: %.0f B data + %.0f B indexes = %.0f B%n", data >> 20,
				indexes >> 20, (double) data / size, (double) indexes / size, (double) (data + indexes) / size);
	}

	/** The periodic queries of operations: the table check (gauges, audit) and the endpoint's FAILED page. */
	private void operations() {
		ClaimTableCheck check = new ClaimTableCheck(this.dataSource, this.table, this.dialect, Duration.ofMinutes(10),
				KeyMasker.CLEAR, Clock.systemUTC());
		check.run();
		long start = System.nanoTime();
		var counts = check.run();
		print("table check (gauges): %.1f ms (failed %,d, stuck %,d)%n", millis(start), counts.failed(), counts.stuck());
		ClaimInspector inspector = new ClaimInspector(this.dataSource, this.table, this.dialect);
		inspector.failed(null, 0, 21);
		start = System.nanoTime();
		inspector.failed(null, 0, 21);
		double all = millis(start);
		start = System.nanoTime();
		inspector.failed(ScaleFill.SCOPES.get(2), 0, 21);
		print("endpoint FAILED page: %.1f ms all scopes, %.1f ms one scope%n", all, millis(start));
	}

	private void retention(long size) throws Exception {
		LocalDateTime oldest = this.jdbc.queryForObject("SELECT MIN(updated_at) FROM " + this.table + " WHERE status = 1",
				LocalDateTime.class);
		Instant now = Instant.now();
		Instant nothingDue = oldest.toInstant(ZoneOffset.UTC).minusSeconds(1);
		print("plan of the batch selection, nothing due (executed): %s%n", plan(nothingDue));
		Latencies idle = new Latencies();
		for (int i = 0; i < 5; i++) {
			long start = System.nanoTime();
			int moved = job(now, nothingDue, this.dataSource).run();
			idle.add(System.nanoTime() - start);
			require(moved == 0, "moved " + moved + " rows with nothing due");
		}
		print("retention run, nothing due: median %.1f ms, max %.1f ms (5 runs)%n", idle.percentileMillis(50),
				idle.percentileMillis(100));

		Instant onePercent = oldest.toInstant(ZoneOffset.UTC).plusMillis(size / 100 * 100);
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong claimed = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			List<Future<?>> claimers = new ArrayList<>();
			for (int t = 0; t < 2; t++) {
				claimers.add(pool.submit(() -> {
					while (running.get()) {
						claim(request(UUID.randomUUID().toString()));
						claimed.incrementAndGet();
					}
					return null;
				}));
			}
			StatementTimes times = new StatementTimes(this.dataSource);
			Map<String, Long> before = databaseCounters();
			long start = System.nanoTime();
			int moved = job(now, onePercent, times).run();
			double took = seconds(start);
			running.set(false);
			for (Future<?> claimer : claimers) {
				claimer.get(1, TimeUnit.MINUTES);
			}
			int batches = (moved + this.retentionBatch - 1) / this.retentionBatch;
			print("retention run, 1%% due (%,d rows archived, batch %d) while 2 threads claim: %.1f s, %,.0f rows/s;"
					+ " claims meanwhile %,.0f/s%n", moved, this.retentionBatch, took, moved / took,
					claimed.get() / took);
			print("  where its time went (driver wall time): %s%n", times.summary(batches));
			print("  database counters during the run (claims included): %s%n", delta(before, databaseCounters()));
		}
		finally {
			running.set(false);
			pool.shutdownNow();
		}
	}

	private JdbcRetentionJob job(Instant now, Instant cutoff, javax.sql.DataSource dataSource) {
		return new JdbcRetentionJob(dataSource, this.table, this.table.archive(), this.dialect,
				new RetentionPolicy(Duration.between(cutoff, now), RetentionMode.ARCHIVE, true, this.retentionBatch),
				Clock.fixed(now, ZoneOffset.UTC), RetentionListener.NO_OP);
	}

	/**
	 * The database's own counters of disk reads, buffer reads, fsyncs and commits (MariaDB: SHOW GLOBAL STATUS, the
	 * whole server; PostgreSQL: pg_stat_database of this database).
	 */
	private Map<String, Long> databaseCounters() {
		Map<String, Long> counters = new java.util.LinkedHashMap<>();
		if (this.dialect == SqlDialect.POSTGRESQL) {
			this.jdbc.query("SELECT blks_read, blks_hit, xact_commit FROM pg_stat_database WHERE datname = current_database()",
					(rs) -> {
						counters.put("blocks read from disk", rs.getLong(1));
						counters.put("blocks hit in shared buffers", rs.getLong(2));
						counters.put("commits", rs.getLong(3));
					});
		}
		else {
			Map<String, String> names = Map.of("Innodb_buffer_pool_reads", "pages read from disk",
					"Innodb_buffer_pool_read_requests", "page reads", "Innodb_data_fsyncs", "fsyncs",
					"Innodb_buffer_pool_wait_free", "waits for a free page", "Innodb_log_waits", "redo log waits",
					"Com_commit", "commits");
			this.jdbc.query("SHOW GLOBAL STATUS", (rs) -> {
				String label = names.get(rs.getString(1));
				if (label != null) {
					counters.put(label, Long.parseLong(rs.getString(2)));
				}
			});
		}
		return counters;
	}

	private static String delta(Map<String, Long> before, Map<String, Long> after) {
		StringBuilder delta = new StringBuilder();
		new java.util.TreeMap<>(after).forEach((name, value) -> delta.append(delta.isEmpty() ? "" : ", ")
			.append(name)
			.append(' ')
			.append(String.format("%,d", value - before.getOrDefault(name, 0L))));
		return delta.toString();
	}

	private String plan(Instant cutoff) {
		String limit = (this.dialect == SqlDialect.POSTGRESQL) ? " FETCH FIRST 500 ROWS ONLY" : " LIMIT 500";
		String explain = (this.dialect == SqlDialect.POSTGRESQL) ? "EXPLAIN (ANALYZE, BUFFERS) " : "ANALYZE ";
		String sql = explain + "SELECT id FROM " + this.table + " WHERE status = 1 AND updated_at < ? ORDER BY updated_at"
				+ limit + " FOR UPDATE SKIP LOCKED";
		List<String> lines = this.jdbc.query(sql, (ps) -> this.dialect.bindTime(ps, 1,
				LocalDateTime.ofInstant(cutoff, ZoneOffset.UTC)), (rs, row) -> {
					StringBuilder line = new StringBuilder();
					for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
						line.append(rs.getString(i)).append(' ');
					}
					return line.toString().trim();
				});
		return String.join(" | ", lines);
	}

	private ClaimOutcome<String> claim(ClaimRequest request) {
		try {
			return this.claims.execute(request, () -> "done");
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private ClaimRequest request(String uuid) {
		return new ClaimRequest(ScaleFill.SCOPES.get(ThreadLocalRandom.current().nextInt(4)), uuid, this.source);
	}

	private static void require(boolean condition, String message) {
		if (!condition) {
			throw new IllegalStateException(message);
		}
	}

	static String loadAverage() {
		try {
			return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
		}
		catch (java.io.IOException ex) {
			return "unknown";
		}
	}

	static double seconds(long startNanos) {
		return (System.nanoTime() - startNanos) / 1e9;
	}

	private static double millis(long startNanos) {
		return (System.nanoTime() - startNanos) / 1e6;
	}

	private static void print(String format, Object... args) {
		System.out.printf(format, args);
		System.out.flush();
	}

	static String url(SqlDialect dialect, Map<String, String> options, String database) {
		String url = options.get("url");
		if (url != null) {
			return url;
		}
		return (dialect == SqlDialect.POSTGRESQL) ? "jdbc:postgresql://127.0.0.1:5432/" + database
				: "jdbc:mysql://127.0.0.1:3306/" + database;
	}

	static void createDatabase(SqlDialect dialect, Map<String, String> options) {
		if (options.containsKey("url")) {
			return;
		}
		try (HikariDataSource admin = pool(dialect, options, url(dialect, options, dialect == SqlDialect.POSTGRESQL ? "postgres" : ""))) {
			JdbcTemplate jdbc = new JdbcTemplate(admin);
			if (dialect == SqlDialect.POSTGRESQL) {
				if (jdbc.queryForList("SELECT 1 FROM pg_database WHERE datname = 'scale'").isEmpty()) {
					jdbc.execute("CREATE DATABASE scale");
				}
			}
			else {
				jdbc.execute("CREATE DATABASE IF NOT EXISTS scale");
			}
		}
	}

	static HikariDataSource pool(SqlDialect dialect, Map<String, String> options, String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(options.getOrDefault("user", (dialect == SqlDialect.POSTGRESQL) ? "postgres" : "root"));
		config.setPassword(options.getOrDefault("password", ""));
		config.setMaximumPoolSize(8);
		config.setConnectionInitSql((dialect == SqlDialect.POSTGRESQL)
				? "SET maintenance_work_mem = '1GB'; SET statement_timeout = 0" : "SET SESSION max_statement_time = 0");
		return new HikariDataSource(config);
	}

}
