package dev.idempotent.benchmarks.floor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;

/**
 * The database floor of the two ratios the benchmark targets: the database work alone of each shape, on plain JDBC, with no
 * Kafka, no Spring and no library code on the path. A listener of a shape cannot run faster than its database work
 * on the same machine with the same number of threads, so {@code floor(group commit) / measured(plain listener)} bounds
 * what any group commit of an unchanged record listener can reach, and {@code floor(claim + batch write) /
 * floor(batch write)} what any batch claim can reach against the plain batch listener.
 * <p>
 * The shapes, each with the business write of the main benchmark ({@code bench_ledger} and {@code bench_outbox}, two
 * narrow rows per record) and the claim table of the shipped MariaDB DDL:
 * <ul>
 * <li>{@code single}: per record, as Spring's {@code DataSourceTransactionManager} runs a plain {@code @Transactional}
 * listener on a pool in auto-commit mode: {@code setAutoCommit(false)}, the two INSERTs, {@code COMMIT},
 * {@code setAutoCommit(true)};</li>
 * <li>{@code single_no_toggle}: the same on a connection that stays out of auto-commit mode (the driver settings);</li>
 * <li>{@code group}: per group of {@code --group} records, the least a claim by INSERT must do (one multi-row
 * {@code INSERT IGNORE} of the group's claim rows, nothing read, nothing returned), the two INSERTs per record one
 * statement each (the listener's code unchanged), one {@code COMMIT};</li>
 * <li>{@code batch}: per batch, the two INSERTs as JDBC batches ({@code rewriteBatchedStatements=true}: two multi-row
 * statements) and one {@code COMMIT}: the plain batch listener's database work;</li>
 * <li>{@code batch_claim}: = {@code batch} after the same minimal claim INSERT of the batch's rows.</li>
 * </ul>
 * Every key is new (the floor of a claim is an insert; a hit only adds work). Not published.
 * <pre>
 * java -Dloader.main=dev.idempotent.benchmarks.floor.DatabaseFloor \
 *   -cp idempotent-benchmarks/target/idempotent-benchmarks-0.1.0-SNAPSHOT.jar \
 *   org.springframework.boot.loader.launch.PropertiesLauncher --records=20000 --rounds=3 --threads=2 --group=500
 * </pre>
 */
public final class DatabaseFloor {

	private static final String LEDGER = "INSERT INTO bench_ledger (variant, order_id, amount_minor) VALUES (?, ?, ?)";

	private static final String OUTBOX = "INSERT INTO bench_outbox (variant, order_id, kind) VALUES (?, ?, 'PAYMENT_RECEIVED')";

	private static final TableName CLAIM_TABLE = new TableName("floor_claim");

	private final HikariDataSource dataSource;

	private final int records;

	private final int threads;

	private final int group;

	private DatabaseFloor(HikariDataSource dataSource, int records, int threads, int group) {
		this.dataSource = dataSource;
		this.records = records;
		this.threads = threads;
		this.group = group;
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			String[] pair = arg.replaceFirst("^--", "").split("=", 2);
			options.put(pair[0], (pair.length > 1) ? pair[1] : "true");
		}
		int threads = Integer.parseInt(options.getOrDefault("threads", "2"));
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(options.getOrDefault("db-url",
				"jdbc:mysql://127.0.0.1:3306/test?rewriteBatchedStatements=true"));
		config.setUsername(options.getOrDefault("db-user", "root"));
		config.setPassword(options.getOrDefault("db-password", ""));
		config.setMaximumPoolSize(threads);
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			int records = Integer.parseInt(options.getOrDefault("records", "20000"));
			int group = Integer.parseInt(options.getOrDefault("group", "500"));
			int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
			new DatabaseFloor(dataSource, Math.max(2000, records / 10), threads, group).round(0);
			DatabaseFloor floor = new DatabaseFloor(dataSource, records, threads, group);
			Map<Shape, List<Double>> rates = new LinkedHashMap<>();
			for (int round = 1; round <= rounds; round++) {
				floor.round(round).forEach((shape, rate) -> rates.computeIfAbsent(shape, (s) -> new ArrayList<>()).add(rate));
			}
			print(rates, records, threads, group);
		}
	}

	/** One round of every shape, on empty tables; returns records per second by shape. */
	private Map<Shape, Double> round(int round) throws Exception {
		Map<Shape, Double> rates = new LinkedHashMap<>();
		for (Shape shape : Shape.values()) {
			createTables();
			String variant = "floor-" + shape.name().toLowerCase() + "-" + round;
			long start = System.nanoTime();
			runThreads(shape, variant);
			rates.put(shape, this.records / ((System.nanoTime() - start) / 1e9));
		}
		return rates;
	}

	private void createTables() throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				java.sql.Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS bench_ledger");
			statement.execute("DROP TABLE IF EXISTS bench_outbox");
			statement.execute("DROP TABLE IF EXISTS " + CLAIM_TABLE);
			statement.execute("CREATE TABLE bench_ledger (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
					+ " variant VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, amount_minor BIGINT NOT NULL,"
					+ " INDEX idx_bench_ledger_order (variant, order_id))");
			statement.execute("CREATE TABLE bench_outbox (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
					+ " variant VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, kind VARCHAR(32) NOT NULL)");
		}
		new SchemaInitializer(this.dataSource, CLAIM_TABLE, SqlDialect.MARIADB).initialize();
	}

	/** The records {@code 0..records-1}, thread {@code t} taking every {@code threads}-th, as two partitions would. */
	private void runThreads(Shape shape, String variant) throws Exception {
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
						shape.run(this, connection, variant, orders);
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

	private void single(Connection connection, String variant, List<String> orders, boolean toggle) throws SQLException {
		try (PreparedStatement ledger = connection.prepareStatement(LEDGER);
				PreparedStatement outbox = connection.prepareStatement(OUTBOX)) {
			for (String order : orders) {
				if (toggle) {
					connection.setAutoCommit(false);
				}
				write(ledger, outbox, variant, order);
				connection.commit();
				if (toggle) {
					connection.setAutoCommit(true);
				}
			}
		}
	}

	private void grouped(Connection connection, String variant, List<String> orders, boolean claim, boolean batched)
			throws SQLException {
		try (PreparedStatement ledger = connection.prepareStatement(LEDGER);
				PreparedStatement outbox = connection.prepareStatement(OUTBOX)) {
			for (int from = 0; from < orders.size(); from += this.group) {
				List<String> chunk = orders.subList(from, Math.min(orders.size(), from + this.group));
				if (claim) {
					claim(connection, variant, chunk);
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

	/** The least a claim by INSERT does: one multi-row INSERT of the rows, the columns the shipped DDL requires. */
	private static void claim(Connection connection, String scope, List<String> keys) throws SQLException {
		StringBuilder sql = new StringBuilder("INSERT IGNORE INTO ").append(CLAIM_TABLE)
			.append(" (scope, idempotency_key, status, attempts, created_at, updated_at) VALUES ");
		for (int i = 0; i < keys.size(); i++) {
			sql.append((i == 0) ? "" : ", ").append("(?, ?, 1, 1, ?, ?)");
		}
		Timestamp now = Timestamp.valueOf(LocalDateTime.now());
		try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
			int index = 1;
			for (String key : keys) {
				insert.setString(index++, scope);
				insert.setString(index++, key);
				insert.setTimestamp(index++, now);
				insert.setTimestamp(index++, now);
			}
			insert.executeUpdate();
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

	private static void print(Map<Shape, List<Double>> rates, int records, int threads, int group) {
		System.out.printf("%n%,d records, %d threads, groups and batches of %d; records/s, median of %d rounds (range)%n%n",
				records, threads, group, rates.get(Shape.SINGLE).size());
		System.out.println("| shape | records/s | range |");
		System.out.println("|---|---|---|");
		Map<Shape, Double> medians = new LinkedHashMap<>();
		rates.forEach((shape, values) -> {
			List<Double> sorted = values.stream().sorted().toList();
			double median = sorted.get(sorted.size() / 2);
			medians.put(shape, median);
			System.out.printf("| %s | %,.0f | %,.0f–%,.0f |%n", shape.title, median, sorted.get(0),
					sorted.get(sorted.size() - 1));
		});
		System.out.printf("%ngroup / single: %.2f; group / single_no_toggle: %.2f; batch_claim / batch: %.2f%n",
				medians.get(Shape.GROUP) / medians.get(Shape.SINGLE),
				medians.get(Shape.GROUP) / medians.get(Shape.SINGLE_NO_TOGGLE),
				medians.get(Shape.BATCH_CLAIM) / medians.get(Shape.BATCH));
	}

	/** The database work of one listener shape. */
	private enum Shape {

		SINGLE("single: per record setAutoCommit(false), 2 INSERTs, COMMIT, setAutoCommit(true)"),

		SINGLE_NO_TOGGLE("single_no_toggle: per record 2 INSERTs, COMMIT"),

		GROUP("group: per group one claim INSERT of its rows, 2 INSERTs per record, one COMMIT"),

		BATCH("batch: per batch 2 multi-row INSERTs, one COMMIT"),

		BATCH_CLAIM("batch_claim: per batch one claim INSERT of its rows, 2 multi-row INSERTs, one COMMIT");

		final String title;

		Shape(String title) {
			this.title = title;
		}

		void run(DatabaseFloor floor, Connection connection, String variant, List<String> orders) throws SQLException {
			switch (this) {
				case SINGLE -> floor.single(connection, variant, orders, true);
				case SINGLE_NO_TOGGLE -> floor.single(connection, variant, orders, false);
				case GROUP -> floor.grouped(connection, variant, orders, true, false);
				case BATCH -> floor.grouped(connection, variant, orders, false, true);
				case BATCH_CLAIM -> floor.grouped(connection, variant, orders, true, true);
			}
		}

	}

}
