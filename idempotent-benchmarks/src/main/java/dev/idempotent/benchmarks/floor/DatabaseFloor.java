package dev.idempotent.benchmarks.floor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.benchmarks.BenchLedger;
import dev.idempotent.benchmarks.Options;
import dev.idempotent.benchmarks.layout.ClaimLayout;
import dev.idempotent.benchmarks.layout.LayoutClaims;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

/**
 * The database floor of the ratios the benchmark targets: the database work alone of each shape, on plain JDBC, with
 * no Kafka, no Spring and no library code on the path. A listener of a shape cannot run faster than its database work
 * on the same machine with the same number of threads, so {@code floor(group commit) / measured(plain listener)}
 * bounds what any group commit of an unchanged record listener can reach, and {@code floor(claim + batch write) /
 * floor(batch write)} what any batch claim can reach against the plain batch listener.
 * <p>
 * The shapes, each with the business write of the main benchmark ({@code bench_ledger} and {@code bench_outbox}, two
 * narrow rows per record), on MariaDB or PostgreSQL ({@code --db-url}), each shape that claims once per
 * {@link ClaimLayout layout} of {@code --layouts}:
 * <ul>
 * <li>{@code single}: per record, as Spring's {@code DataSourceTransactionManager} runs a plain {@code @Transactional}
 * listener on a pool in auto-commit mode: {@code setAutoCommit(false)}, the two INSERTs, {@code COMMIT},
 * {@code setAutoCommit(true)};</li>
 * <li>{@code single_no_toggle}: the same on a connection that stays out of auto-commit mode (the driver settings);</li>
 * <li>{@code single_claim}: {@code single_no_toggle} after the claim INSERT of one row as the library words it (the
 * source columns; MariaDB {@code INSERT IGNORE ... RETURNING}, PostgreSQL {@code ON CONFLICT (...) DO NOTHING});</li>
 * <li>{@code hit}: per record of {@code single_claim}, the same claim INSERT finding the key taken, the read of its
 * row (a locking read on MariaDB), {@code COMMIT};</li>
 * <li>{@code group_plain}: per group of {@code --group} records, the two INSERTs per record one statement each, one
 * {@code COMMIT}: the database work of a plain batch listener that writes record by record, the ceiling of group
 * commit;</li>
 * <li>{@code group}: = {@code group_plain} after the least a claim by INSERT must do (one multi-row
 * skipping INSERT of the group's rows, the columns the DDL requires, nothing read, nothing returned), the two INSERTs
 * per record one statement each (the listener's code unchanged), one {@code COMMIT}: group commit's database work;</li>
 * <li>{@code batch}: per batch, the two INSERTs as JDBC batches (multi-row statements with MariaDB's
 * {@code rewriteBatchedStatements=true} or PostgreSQL's {@code reWriteBatchedInserts=true}) and one {@code COMMIT}:
 * the plain batch listener's database work;</li>
 * <li>{@code batch_claim}: = {@code batch} after the least claim INSERT of {@code group};</li>
 * <li>{@code batch_claim_source}: the claim INSERT also writes the source columns (topic, partition, offset), as the
 * library's does;</li>
 * <li>{@code batch_claim_returning}: the claim INSERT also returns the keys it inserted ({@code RETURNING}): the
 * library's statement;</li>
 * <li>{@code batch_claim_read}: a plain read of the batch's keys before that INSERT: the library's batch claim on
 * MariaDB (on PostgreSQL the library reads only the keys the INSERT skipped);</li>
 * <li>{@code batch_hit_read}: the keys of {@code batch_claim_read} again, all hits, found by the plain read alone
 * (MariaDB's library);</li>
 * <li>{@code batch_hit_insert}: the same hits through the claim INSERT, which skips every key, and the reads that
 * then decide them as the library does without a read first (MariaDB: a locking read per key; PostgreSQL: one plain
 * read of the skipped keys, the library's own sequence).</li>
 * </ul>
 * Every key is new except in the hit shapes (the floor of a claim is an insert), which run on the table analyzed.
 * Not published.
 * <pre>
 * java -Dloader.main=dev.idempotent.benchmarks.floor.DatabaseFloor \
 *   -cp idempotent-benchmarks/target/idempotent-benchmarks-0.1.0-SNAPSHOT.jar \
 *   org.springframework.boot.loader.launch.PropertiesLauncher --records=20000 --rounds=3 --threads=2 --group=500 \
 *   --layouts=text,digest [--db-url=jdbc:postgresql://127.0.0.1:5432/test?reWriteBatchedInserts=true --db-user=postgres]
 * </pre>
 */
public final class DatabaseFloor {

	private static final String LEDGER = "INSERT INTO bench_ledger (variant, order_id, amount_minor) VALUES (?, ?, ?)";

	private static final String OUTBOX = "INSERT INTO bench_outbox (variant, order_id, kind) VALUES (?, ?, 'PAYMENT_RECEIVED')";

	private final HikariDataSource dataSource;

	private final boolean postgres;

	private final int records;

	private final int threads;

	private final int group;

	private DatabaseFloor(HikariDataSource dataSource, boolean postgres, int records, int threads, int group) {
		this.dataSource = dataSource;
		this.postgres = postgres;
		this.records = records;
		this.threads = threads;
		this.group = group;
	}

	/**
	 * Run the floor and print its table.
	 * @param args the options of the class comment
	 * @throws Exception if the database cannot be reached, or a shape's outcome is not the one expected (a new key
	 * found taken, a hit not found)
	 */
	public static void main(String[] args) throws Exception {
		Map<String, String> options = Options.parse(args);
		int threads = Integer.parseInt(options.getOrDefault("threads", "2"));
		String url = options.getOrDefault("db-url", "jdbc:mysql://127.0.0.1:3306/test?rewriteBatchedStatements=true");
		boolean postgres = url.startsWith("jdbc:postgresql:");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(options.getOrDefault("db-user", postgres ? "postgres" : "root"));
		config.setPassword(options.getOrDefault("db-password", ""));
		config.setMaximumPoolSize(threads);
		List<ClaimLayout> layouts = Arrays.stream(options.getOrDefault("layouts", "text").split(","))
			.map((name) -> ClaimLayout.valueOf(name.trim().toUpperCase()))
			.toList();
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			int records = Integer.parseInt(options.getOrDefault("records", "20000"));
			int group = Integer.parseInt(options.getOrDefault("group", "500"));
			int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
			new DatabaseFloor(dataSource, postgres, Math.max(2000, records / 10), threads, group).round(0, layouts);
			DatabaseFloor floor = new DatabaseFloor(dataSource, postgres, records, threads, group);
			Map<String, List<Double>> rates = new LinkedHashMap<>();
			for (int round = 1; round <= rounds; round++) {
				floor.round(round, layouts)
					.forEach((run, rate) -> rates.computeIfAbsent(run, (s) -> new ArrayList<>()).add(rate));
			}
			print(rates, records, threads, group, postgres ? "PostgreSQL" : "MariaDB", layouts);
		}
	}

	/** One round of every shape (each that claims once per layout), on empty tables; records/s by shape. */
	private Map<String, Double> round(int round, List<ClaimLayout> layouts) throws Exception {
		Map<String, Double> rates = new LinkedHashMap<>();
		for (Shape shape : Shape.values()) {
			for (ClaimLayout layout : shape.claims ? layouts : layouts.subList(0, 1)) {
				String run = shape.name().toLowerCase() + (shape.claims ? " [" + layout.name().toLowerCase() + "]" : "");
				// a hit claims the keys that the shape it replays claimed just before, in their table
				Shape tables = (shape.replays != null) ? shape.replays : shape;
				if (shape.replays == null) {
					createTables(layout);
				}
				else {
					analyze(layout);
				}
				String variant = "floor-" + tables.name().toLowerCase() + "-" + layout.name().toLowerCase() + "-" + round;
				long start = System.nanoTime();
				runThreads(shape, layout, variant);
				rates.put(run, this.records / ((System.nanoTime() - start) / 1e9));
			}
		}
		return rates;
	}

	private static TableName claimTable(ClaimLayout layout) {
		return new TableName("floor_claim_" + layout.name().toLowerCase());
	}

	private void createTables(ClaimLayout layout) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				java.sql.Statement statement = connection.createStatement()) {
			connection.setAutoCommit(true);
			statement.execute("DROP TABLE IF EXISTS bench_ledger");
			statement.execute("DROP TABLE IF EXISTS bench_outbox");
			statement.execute("DROP TABLE IF EXISTS " + claimTable(layout));
			for (String ddl : BenchLedger.ddl(this.postgres)) {
				statement.execute(ddl);
			}
		}
		layout.create(this.dataSource, claimTable(layout), this.postgres);
	}

	/**
	 * Give the claim table statistics before its keys are read again: PostgreSQL plans a read of many keys of a
	 * table without them (created seconds before, not yet analyzed by autovacuum) as a scan of the whole scope.
	 */
	private void analyze(ClaimLayout layout) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				java.sql.Statement statement = connection.createStatement()) {
			connection.setAutoCommit(true);
			statement.execute((this.postgres ? "ANALYZE " : "ANALYZE TABLE ") + claimTable(layout));
		}
	}

	/** The records {@code 0..records-1}, thread {@code t} taking every {@code threads}-th, as two partitions would. */
	private void runThreads(Shape shape, ClaimLayout layout, String variant) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(this.threads);
		try {
			List<Future<Void>> done = new ArrayList<>();
			for (int t = 0; t < this.threads; t++) {
				List<String> orders = new ArrayList<>();
				for (int i = t; i < this.records; i += this.threads) {
					orders.add("ORD-" + i);
				}
				Callable<Void> work = () -> {
					try (Connection connection = this.dataSource.getConnection()) {
						connection.setAutoCommit(shape == Shape.SINGLE);
						run(shape, new LayoutClaims(layout, claimTable(layout), this.postgres), connection, variant, orders);
					}
					return null;
				};
				done.add(pool.submit(work));
			}
			for (Future<Void> future : done) {
				future.get();
			}
		}
		finally {
			pool.shutdown();
		}
	}

	private void single(Connection connection, String variant, List<String> orders, boolean toggle,
			LayoutClaims claims) throws SQLException {
		try (PreparedStatement ledger = connection.prepareStatement(LEDGER);
				PreparedStatement outbox = connection.prepareStatement(OUTBOX);
				PreparedStatement claim = (claims != null) ? prepareSingleInsert(connection, claims) : null) {
			for (String order : orders) {
				if (toggle) {
					connection.setAutoCommit(false);
				}
				if (claims != null && claims.insert(claim, variant, List.of(order), true) != 1) {
					throw new IllegalStateException("The floor's key " + order + " was taken");
				}
				write(ledger, outbox, variant, order);
				connection.commit();
				if (toggle) {
					connection.setAutoCommit(true);
				}
			}
		}
	}

	private void hits(Connection connection, String variant, List<String> orders, LayoutClaims claims)
			throws SQLException {
		try (PreparedStatement claim = prepareSingleInsert(connection, claims);
				PreparedStatement read = claims.prepareRead(connection, 1, !this.postgres)) {
			for (String order : orders) {
				if (claims.insert(claim, variant, List.of(order), true) != 0 || claims.read(read, variant, List.of(order)) != 1) {
					throw new IllegalStateException("The floor's key " + order + " was not a hit");
				}
				connection.commit();
			}
		}
	}

	private void batchHits(Connection connection, String variant, List<String> orders, Shape shape, LayoutClaims claims)
			throws SQLException {
		for (int from = 0; from < orders.size(); from += this.group) {
			List<String> chunk = orders.subList(from, Math.min(orders.size(), from + this.group));
			boolean allFound;
			if (shape == Shape.BATCH_HIT_READ) {
				try (PreparedStatement read = claims.prepareRead(connection, chunk.size(), false)) {
					allFound = claims.read(read, variant, chunk) == chunk.size();
				}
			}
			else {
				try (PreparedStatement insert = claims.prepareInsert(connection, chunk.size(), true, true)) {
					allFound = claims.insert(insert, variant, chunk, true) == 0;
				}
				if (this.postgres) {
					try (PreparedStatement read = claims.prepareRead(connection, chunk.size(), false)) {
						allFound &= claims.read(read, variant, chunk) == chunk.size();
					}
				}
				else {
					try (PreparedStatement read = claims.prepareRead(connection, 1, true)) {
						for (String order : chunk) {
							allFound &= claims.read(read, variant, List.of(order)) == 1;
						}
					}
				}
			}
			if (!allFound) {
				throw new IllegalStateException("The floor's batch of hits found a key new");
			}
			connection.commit();
		}
	}

	private void grouped(Connection connection, String variant, List<String> orders, Shape shape, LayoutClaims claims)
			throws SQLException {
		boolean batched = shape != Shape.GROUP && shape != Shape.GROUP_PLAIN;
		try (PreparedStatement ledger = connection.prepareStatement(LEDGER);
				PreparedStatement outbox = connection.prepareStatement(OUTBOX)) {
			for (int from = 0; from < orders.size(); from += this.group) {
				List<String> chunk = orders.subList(from, Math.min(orders.size(), from + this.group));
				if (shape.claims) {
					claimChunk(connection, claims, shape, variant, chunk);
				}
				for (String order : chunk) {
					if (batched) {
						bind(ledger, outbox, variant, order);
						ledger.addBatch();
						outbox.addBatch();
					}
					else {
						write(ledger, outbox, variant, order);
					}
				}
				if (batched) {
					ledger.executeBatch();
					outbox.executeBatch();
				}
				connection.commit();
			}
		}
	}

	private static void write(PreparedStatement ledger, PreparedStatement outbox, String variant, String order)
			throws SQLException {
		bind(ledger, outbox, variant, order);
		ledger.executeUpdate();
		outbox.executeUpdate();
	}

	private static void bind(PreparedStatement ledger, PreparedStatement outbox, String variant, String order)
			throws SQLException {
		ledger.setString(1, variant);
		ledger.setString(2, order);
		ledger.setLong(3, 1000 + (order.hashCode() & 0xffff));
		outbox.setString(1, variant);
		outbox.setString(2, order);
	}

	private static void print(Map<String, List<Double>> rates, int records, int threads, int group, String database,
			List<ClaimLayout> layouts) {
		System.out.printf("%n%s, %,d records, %d threads, groups and batches of %d; records/s, median of %d rounds"
				+ " (range)%n%n", database, records, threads, group, rates.values().iterator().next().size());
		System.out.println("| shape | records/s | range |");
		System.out.println("|---|---|---|");
		Map<String, Double> medians = new LinkedHashMap<>();
		rates.forEach((run, values) -> {
			List<Double> sorted = values.stream().sorted().toList();
			double median = sorted.get(sorted.size() / 2);
			medians.put(run, median);
			System.out.printf("| %s | %,.0f | %,.0f–%,.0f |%n", run, median, sorted.get(0), sorted.get(sorted.size() - 1));
		});
		System.out.println();
		for (ClaimLayout layout : layouts) {
			String l = " [" + layout.name().toLowerCase() + "]";
			System.out.printf("%s: group / single %.2f; group / group_plain %.2f; batch_claim / batch %.2f;"
					+ " batch_claim_returning / batch %.2f; batch_claim_read / batch %.2f; single_claim / single_no_toggle"
					+ " %.2f; hit / single_claim %.2f; batch_hit_read / batch_hit_insert %.2f%n",
					layout.name().toLowerCase(), medians.get("group" + l) / medians.get("single"),
					medians.get("group" + l) / medians.get("group_plain"),
					medians.get("batch_claim" + l) / medians.get("batch"),
					medians.get("batch_claim_returning" + l) / medians.get("batch"),
					medians.get("batch_claim_read" + l) / medians.get("batch"),
					medians.get("single_claim" + l) / medians.get("single_no_toggle"),
					medians.get("hit" + l) / medians.get("single_claim" + l),
					medians.get("batch_hit_read" + l) / medians.get("batch_hit_insert" + l));
		}
	}

	/**
	 * The library's single claim INSERT: with the source columns, {@code RETURNING} on MariaDB (where it tells a
	 * skipped row from an inserted one), an update count on PostgreSQL.
	 */
	private PreparedStatement prepareSingleInsert(Connection connection, LayoutClaims claims) throws SQLException {
		return claims.prepareInsert(connection, 1, true, !this.postgres);
	}

	/** The claim of a chunk of new keys, as the shape words it. */
	private static void claimChunk(Connection connection, LayoutClaims claims, Shape shape, String scope,
			List<String> keys) throws SQLException {
		boolean source = shape == Shape.BATCH_CLAIM_SOURCE || shape == Shape.BATCH_CLAIM_RETURNING
				|| shape == Shape.BATCH_CLAIM_READ;
		boolean returning = shape == Shape.BATCH_CLAIM_RETURNING || shape == Shape.BATCH_CLAIM_READ;
		if (shape == Shape.BATCH_CLAIM_READ) {
			try (PreparedStatement read = claims.prepareRead(connection, keys.size(), false)) {
				if (claims.read(read, scope, keys) != 0) {
					throw new IllegalStateException("The floor's keys were taken");
				}
			}
		}
		try (PreparedStatement insert = claims.prepareInsert(connection, keys.size(), source, returning)) {
			int inserted = claims.insert(insert, scope, keys, source);
			if (inserted != keys.size()) {
				throw new IllegalStateException("The floor's claim inserted " + inserted + " of " + keys.size());
			}
		}
	}

	private void run(Shape shape, LayoutClaims claims, Connection connection, String variant, List<String> orders)
			throws SQLException {
		switch (shape) {
			case SINGLE -> single(connection, variant, orders, true, null);
			case SINGLE_NO_TOGGLE -> single(connection, variant, orders, false, null);
			case SINGLE_CLAIM -> single(connection, variant, orders, false, claims);
			case HIT -> hits(connection, variant, orders, claims);
			case BATCH_HIT_READ, BATCH_HIT_INSERT -> batchHits(connection, variant, orders, shape, claims);
			default -> grouped(connection, variant, orders, shape, claims);
		}
	}

	/** The database work of one listener shape. */
	private enum Shape {

		SINGLE(false, null), SINGLE_NO_TOGGLE(false, null), SINGLE_CLAIM(true, null), HIT(true, SINGLE_CLAIM),
		GROUP_PLAIN(false, null), GROUP(true, null), BATCH(false, null), BATCH_CLAIM(true, null),
		BATCH_CLAIM_SOURCE(true, null), BATCH_CLAIM_RETURNING(true, null), BATCH_CLAIM_READ(true, null),
		BATCH_HIT_READ(true, BATCH_CLAIM_READ), BATCH_HIT_INSERT(true, BATCH_CLAIM_READ);

		/** Whether the shape claims, and so runs once per layout. */
		final boolean claims;

		/** The shape whose keys this one claims again, all hits, or {@code null}. */
		final @Nullable Shape replays;

		Shape(boolean claims, @Nullable Shape replays) {
			this.claims = claims;
			this.replays = replays;
		}

	}

}
