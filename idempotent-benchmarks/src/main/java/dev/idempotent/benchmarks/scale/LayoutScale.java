package dev.idempotent.benchmarks.scale;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.benchmarks.Options;
import dev.idempotent.benchmarks.layout.ClaimLayout;
import dev.idempotent.benchmarks.layout.LayoutClaims;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The two {@link ClaimLayout layouts} of the idempotency table side by side at one size (default 10M rows), on the
 * database's default configuration: each layout's table filled as {@link ScaleFill} fills it, then measured with the
 * same statements, worded as the library words its own (the layout changes only the key columns and the unique
 * index):
 * <ol>
 * <li><b>bytes per row</b>: data, all indexes, the unique index alone (MariaDB {@code mysql.innodb_index_stats}
 * after {@code ANALYZE TABLE}; PostgreSQL {@code pg_table_size}, {@code pg_relation_size} of each index);</li>
 * <li><b>batch claims</b>: 100 transactions of 500 new keys of one scope ({@code --keys=mixed}, the default: half
 * business-style keys that follow the table's newest, {@code pay:<date>:<n>}, half random UUIDs; {@code --keys=uuid}:
 * all random UUIDs, so that the shipped layout's index has no locality either); MariaDB: a plain read of the keys,
 * then one {@code INSERT IGNORE ... RETURNING}; PostgreSQL: one {@code INSERT ... ON CONFLICT DO NOTHING
 * RETURNING};</li>
 * <li><b>single claims</b>: 2,000 new keys of the same mix, one claim INSERT and one commit each;</li>
 * <li><b>hits</b>: 2,000 existing keys picked by random id: the claim INSERT finds the key, the row is read (a
 * locking read on MariaDB), commit;</li>
 * <li><b>retention</b>: the oldest 1% of the rows archived and deleted as the shipped job does (per batch of 500:
 * the due ids in {@code updated_at} order {@code FOR UPDATE SKIP LOCKED}, an {@code INSERT ... SELECT} into the
 * archive, a {@code DELETE} by id, a commit), nothing else running.</li>
 * </ol>
 * One thread; every latency includes the commit. Tables {@code layout_text}, {@code layout_digest} and their
 * archives in the database {@code scale}, dropped at the end.
 * <pre>
 * java -Dloader.main=dev.idempotent.benchmarks.scale.LayoutScale \
 *   -cp idempotent-benchmarks/target/idempotent-benchmarks-0.1.0-SNAPSHOT.jar \
 *   org.springframework.boot.loader.launch.PropertiesLauncher --db=mariadb --size=10000000
 * </pre>
 */
public final class LayoutScale {

	private static final String SCOPE = ScaleFill.SCOPES.get(0);

	private static final int BATCHES = 100;

	private static final int BATCH = 500;

	private static final int SINGLE = 2000;

	private static final int RETENTION_BATCH = 500;

	private final SqlDialect dialect;

	private final HikariDataSource dataSource;

	private final JdbcTemplate jdbc;

	private final ClaimLayout layout;

	private final TableName table;

	private final LayoutClaims claims;

	private final long size;

	/** Whether new keys are all random UUIDs, or every other one business-style. */
	private final boolean uuidKeys;

	/** The number after the table's newest business-style key: new keys follow the table's newest. */
	private long next;

	private LayoutScale(SqlDialect dialect, HikariDataSource dataSource, ClaimLayout layout, long size,
			boolean uuidKeys) {
		this.uuidKeys = uuidKeys;
		this.dialect = dialect;
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.layout = layout;
		this.table = new TableName("layout_" + layout.name().toLowerCase());
		this.claims = new LayoutClaims(layout, this.table, dialect == SqlDialect.POSTGRESQL);
		this.size = size;
		this.next = size + 1;
	}

	/**
	 * Run the comparison and print its figures.
	 * @param args the options of the class comment
	 * @throws Exception if the database cannot be reached, or a measurement's outcome is not the one expected (a new
	 * key found taken, an existing key inserted)
	 */
	public static void main(String[] args) throws Exception {
		Map<String, String> options = Options.parse(args);
		SqlDialect dialect = SqlDialect.fromId(options.getOrDefault("db", "mariadb"));
		long size = Long.parseLong(options.getOrDefault("size", "10000000"));
		ScaleBenchmark.createDatabase(dialect, options);
		try (HikariDataSource dataSource = ScaleBenchmark.pool(dialect, options,
				ScaleBenchmark.url(dialect, options, "scale"))) {
			for (String name : options.getOrDefault("layouts", "text,digest").split(",")) {
				new LayoutScale(dialect, dataSource, ClaimLayout.valueOf(name.trim().toUpperCase()), size,
						options.getOrDefault("keys", "mixed").equals("uuid")).run();
			}
		}
	}

	private void run() throws Exception {
		drop();
		this.layout.create(this.dataSource, this.table, this.dialect == SqlDialect.POSTGRESQL);
		this.jdbc.execute("CREATE TABLE " + archive() + " AS SELECT * FROM " + this.table + " WHERE 1 = 0");
		this.jdbc.execute("ALTER TABLE " + archive() + " ADD PRIMARY KEY (id)");
		try {
			long start = System.nanoTime();
			new ScaleFill(this.jdbc, this.table, this.dialect, this.layout).fill(1, this.size);
			print("%n## %s, %s layout, %,d rows, new keys %s (filled in %.0f s; load average %s)%n", this.dialect.id(),
					this.layout.name().toLowerCase(), this.size, this.uuidKeys ? "random UUIDs" : "mixed",
					ScaleBenchmark.seconds(start), ScaleBenchmark.loadAverage());
			bytesPerRow();
			batchClaims();
			singleClaims();
			hits();
			retention();
		}
		finally {
			drop();
		}
	}

	private String archive() {
		return this.table + "_archive";
	}

	private void drop() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + archive());
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
	}

	private void bytesPerRow() {
		long data;
		long indexes;
		long unique;
		String uniqueName = "uk_" + this.table.simpleName()
				+ ((this.layout == ClaimLayout.DIGEST) ? "_digest" : "_scope_key");
		if (this.dialect == SqlDialect.POSTGRESQL) {
			data = number("SELECT pg_table_size('" + this.table + "')");
			indexes = number("SELECT pg_indexes_size('" + this.table + "')");
			unique = number("SELECT pg_relation_size('" + uniqueName + "')");
		}
		else {
			this.jdbc.execute("ANALYZE TABLE " + this.table);
			String stat = "SELECT COALESCE(SUM(stat_value), 0) * @@innodb_page_size FROM mysql.innodb_index_stats"
					+ " WHERE database_name = DATABASE() AND table_name = '" + this.table + "' AND stat_name = 'size'";
			data = number(stat + " AND index_name = 'PRIMARY'");
			indexes = number(stat + " AND index_name <> 'PRIMARY'");
			unique = number(stat + " AND index_name = '" + uniqueName + "'");
		}
		print("bytes per row: data %.0f + indexes %.0f (the unique index %.0f); %,d MB + %,d MB%n",
				(double) data / this.size, (double) indexes / this.size, (double) unique / this.size, data >> 20,
				indexes >> 20);
	}

	private long number(String sql) {
		Long value = this.jdbc.queryForObject(sql, Long.class);
		return (value != null) ? value : -1;
	}

	/** A new key: business-style after the table's newest, or a random UUID, alternately; or a random UUID. */
	private String newKey(int i) {
		return (i % 2 == 0 && !this.uuidKeys) ? "pay:2026-12-04:" + this.next++ : UUID.randomUUID().toString();
	}

	private void batchClaims() throws SQLException {
		Latencies latencies = new Latencies();
		long start = System.nanoTime();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			for (int b = 0; b < BATCHES; b++) {
				List<String> keys = new ArrayList<>(BATCH);
				for (int i = 0; i < BATCH; i++) {
					keys.add(newKey(i));
				}
				Collections.sort(keys);
				long batchStart = System.nanoTime();
				if (this.dialect != SqlDialect.POSTGRESQL) {
					require(read(connection, keys, false) == 0, "a new key was found");
				}
				require(insert(connection, keys) == BATCH, "a new key was not inserted");
				connection.commit();
				latencies.add(System.nanoTime() - batchStart);
			}
		}
		print("batch of %d new keys: p50 %.2f ms, p99 %.2f ms; %,.0f claims/s%n", BATCH, latencies.percentileMillis(50),
				latencies.percentileMillis(99), BATCHES * BATCH / ScaleBenchmark.seconds(start));
	}

	private void singleClaims() throws SQLException {
		Latencies latencies = new Latencies();
		long start = System.nanoTime();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			for (int i = 0; i < SINGLE; i++) {
				String key = newKey(i);
				long claimStart = System.nanoTime();
				require(insert(connection, List.of(key)) == 1, "a new key was not inserted");
				connection.commit();
				latencies.add(System.nanoTime() - claimStart);
			}
		}
		print("single claim: p50 %.2f ms, p99 %.2f ms; %,.0f claims/s%n", latencies.percentileMillis(50),
				latencies.percentileMillis(99), SINGLE / ScaleBenchmark.seconds(start));
	}

	private void hits() throws SQLException {
		Random random = new Random(7);
		List<String[]> keys = new ArrayList<>(SINGLE);
		while (keys.size() < SINGLE) {
			keys.addAll(this.jdbc.query("SELECT scope, idempotency_key FROM " + this.table + " WHERE id = ?",
					(rs, row) -> new String[] { rs.getString(1), rs.getString(2) }, 1 + (long) (random.nextDouble() * this.size)));
		}
		Latencies latencies = new Latencies();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			for (String[] key : keys) {
				long hitStart = System.nanoTime();
				require(insert(connection, key[0], List.of(key[1])) == 0, "an existing key was inserted");
				require(read(connection, key[0], List.of(key[1]), this.dialect != SqlDialect.POSTGRESQL) == 1,
						"an existing key was not found");
				connection.commit();
				latencies.add(System.nanoTime() - hitStart);
			}
		}
		print("hit: p50 %.2f ms, p99 %.2f ms%n", latencies.percentileMillis(50), latencies.percentileMillis(99));
	}

	private int insert(Connection connection, List<String> keys) throws SQLException {
		return insert(connection, SCOPE, keys);
	}

	/** The library's claim INSERT of several keys of a scope, returning the inserted keys; the rows it inserted. */
	private int insert(Connection connection, String scope, List<String> keys) throws SQLException {
		try (PreparedStatement ps = this.claims.prepareInsert(connection, keys.size(), true, true)) {
			return this.claims.insert(ps, scope, keys, true);
		}
	}

	private int read(Connection connection, List<String> keys, boolean locking) throws SQLException {
		return read(connection, SCOPE, keys, locking);
	}

	/** The library's read of the rows of keys of a scope; the rows it found. */
	private int read(Connection connection, String scope, List<String> keys, boolean locking) throws SQLException {
		try (PreparedStatement ps = this.claims.prepareRead(connection, keys.size(), locking)) {
			return this.claims.read(ps, scope, keys);
		}
	}

	private void retention() throws SQLException {
		Timestamp cutoff = Timestamp.valueOf(LocalDateTime.parse(ScaleFill.BASE.replace(' ', 'T'))
			.plusNanos(this.size / 100 * 100_000_000L));
		long rows = 0;
		Latencies latencies = new Latencies();
		long start = System.nanoTime();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement due = connection.prepareStatement("SELECT id FROM " + this.table
						+ " WHERE status = 1 AND updated_at < ? ORDER BY updated_at LIMIT " + RETENTION_BATCH
						+ " FOR UPDATE SKIP LOCKED")) {
			connection.setAutoCommit(false);
			while (true) {
				long batchStart = System.nanoTime();
				due.setTimestamp(1, cutoff);
				List<Long> ids = new ArrayList<>(RETENTION_BATCH);
				try (ResultSet rs = due.executeQuery()) {
					while (rs.next()) {
						ids.add(rs.getLong(1));
					}
				}
				if (ids.isEmpty()) {
					connection.commit();
					break;
				}
				String in = " WHERE id IN (" + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")";
				try (PreparedStatement copy = connection.prepareStatement("INSERT INTO " + archive() + " SELECT * FROM "
						+ this.table + in); PreparedStatement delete = connection.prepareStatement("DELETE FROM "
								+ this.table + in)) {
					for (int i = 0; i < ids.size(); i++) {
						copy.setLong(i + 1, ids.get(i));
						delete.setLong(i + 1, ids.get(i));
					}
					copy.executeUpdate();
					require(delete.executeUpdate() == ids.size(), "a due row was not deleted");
				}
				connection.commit();
				rows += ids.size();
				latencies.add(System.nanoTime() - batchStart);
			}
		}
		print("retention, 1%% due: %,d rows archived, %,.0f rows/s (batch of %d p50 %.1f ms)%n", rows,
				rows / ScaleBenchmark.seconds(start), RETENTION_BATCH, latencies.percentileMillis(50));
	}

	private static void require(boolean condition, String message) {
		if (!condition) {
			throw new IllegalStateException(message);
		}
	}

	private static void print(String format, Object... args) {
		System.out.printf(format, args);
		System.out.flush();
	}
}
