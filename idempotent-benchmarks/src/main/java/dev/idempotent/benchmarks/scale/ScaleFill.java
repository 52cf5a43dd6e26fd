package dev.idempotent.benchmarks.scale;

import java.util.List;

import dev.idempotent.benchmarks.layout.ClaimLayout;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Fills the idempotency table inside the database (no row crosses the network): rows n = from..to get one of four
 * scopes, a business-style key {@code pay:<date>:<orderId>} (even n) or a UUID-shaped key from MD5(n) (odd n),
 * status SUCCEEDED (FAILED every 10,000th row), and an updated time of 2026-09-01 plus n tenths of a second, so rows
 * arrive in time order as they do in production and 50M rows span 58 days. The unique and the (status, updated_at)
 * indexes are dropped before and rebuilt after a fill (a sorted build instead of 10^7 random index inserts). In the
 * {@link ClaimLayout#DIGEST digest layout} each row's digest is computed in the database as {@link ClaimLayout#digest}
 * computes it, and the unique index is on the digest.
 */
final class ScaleFill {

	/** The scopes the rows are spread over. */
	static final List<String> SCOPES = List.of("payments-ledger", "order-projection", "sms-notifier", "invoice-writer");

	/** The updated time of row n is this plus n tenths of a second. */
	static final String BASE = "2026-09-01 00:00:00";

	/** Rows per INSERT ... SELECT. */
	private static final long CHUNK = 2_000_000;

	private final JdbcTemplate jdbc;

	private final TableName table;

	private final SqlDialect dialect;

	private final ClaimLayout layout;

	ScaleFill(JdbcTemplate jdbc, TableName table, SqlDialect dialect) {
		this(jdbc, table, dialect, ClaimLayout.TEXT);
	}

	ScaleFill(JdbcTemplate jdbc, TableName table, SqlDialect dialect, ClaimLayout layout) {
		this.jdbc = jdbc;
		this.table = table;
		this.dialect = dialect;
		this.layout = layout;
	}

	/** Add rows from..to (inclusive), rebuilding the indexes around the load. */
	void fill(long from, long to) {
		dropIndexes();
		for (long start = from; start <= to; start += CHUNK) {
			long end = Math.min(to, start + CHUNK - 1);
			this.jdbc.execute(insert(start, end));
		}
		createIndexes();
	}

	private String insert(long from, long to) {
		boolean digest = this.layout == ClaimLayout.DIGEST;
		String columns = " (" + (digest ? "key_digest, " : "") + "scope, idempotency_key, status, attempts, source_topic,"
				+ " source_partition, source_offset, created_at, updated_at) ";
		String values = " sc, k, CASE WHEN n % 10000 = 0 THEN 2 ELSE 1 END, 1, 'payments', n % 12, n, ts, ts";
		if (this.dialect == SqlDialect.POSTGRESQL) {
			return "INSERT INTO " + this.table + columns + "SELECT "
					+ (digest ? ClaimLayout.digestSql(true, "sc", "k") + "," : "")
					+ values + " FROM (SELECT n, ts, (ARRAY['" + String.join("','", SCOPES) + "'])[1 + n % 4] AS sc,"
					+ " CASE WHEN n % 2 = 0 THEN 'pay:' || to_char(ts, 'YYYY-MM-DD') || ':' || n ELSE substr(h, 1, 8) || '-'"
					+ " || substr(h, 9, 4) || '-' || substr(h, 13, 4) || '-' || substr(h, 17, 4) || '-' || substr(h, 21, 12) END AS k"
					+ " FROM (SELECT n, md5(n::text) AS h, TIMESTAMP '" + BASE + "' + n * INTERVAL '100 milliseconds' AS ts"
					+ " FROM generate_series(" + from + ", " + to + ") AS n) AS g) AS s";
		}
		return "INSERT INTO " + this.table + columns + "SELECT "
				+ (digest ? ClaimLayout.digestSql(false, "sc", "k") + "," : "")
				+ values + " FROM (SELECT seq AS n, ts, ELT(1 + seq % 4, '" + String.join("', '", SCOPES) + "') AS sc,"
				+ " IF(seq % 2 = 0, CONCAT('pay:', DATE_FORMAT(ts, '%Y-%m-%d'), ':', seq), CONCAT_WS('-', SUBSTR(h, 1, 8),"
				+ " SUBSTR(h, 9, 4), SUBSTR(h, 13, 4), SUBSTR(h, 17, 4), SUBSTR(h, 21, 12))) AS k"
				+ " FROM (SELECT seq, MD5(seq) AS h, TIMESTAMP '" + BASE + "' + INTERVAL (seq * 100000) MICROSECOND AS ts"
				+ " FROM seq_" + from + "_to_" + to + ") AS g) AS s";
	}

	private String unique() {
		return "uk_" + this.table.simpleName() + ((this.layout == ClaimLayout.DIGEST) ? "_digest" : "_scope_key");
	}

	private String byStatus() {
		return "ix_" + this.table.simpleName() + "_status_updated";
	}

	private void dropIndexes() {
		if (this.dialect == SqlDialect.POSTGRESQL) {
			this.jdbc.execute("ALTER TABLE " + this.table + " DROP CONSTRAINT IF EXISTS " + unique());
			this.jdbc.execute("DROP INDEX IF EXISTS " + byStatus());
		}
		else {
			this.jdbc.execute("ALTER TABLE " + this.table + " DROP INDEX IF EXISTS " + unique() + ", DROP INDEX IF EXISTS "
					+ byStatus());
		}
	}

	private void createIndexes() {
		if (this.dialect == SqlDialect.POSTGRESQL) {
			this.jdbc.execute("ALTER TABLE " + this.table + " ADD CONSTRAINT " + unique() + " UNIQUE ("
					+ this.layout.uniqueColumns() + ")");
			this.jdbc.execute("CREATE INDEX " + byStatus() + " ON " + this.table + " (status, updated_at)");
			this.jdbc.execute("VACUUM ANALYZE " + this.table);
		}
		else {
			this.jdbc.execute("ALTER TABLE " + this.table + " ADD UNIQUE KEY " + unique() + " (" + this.layout.uniqueColumns()
					+ "),"
					+ " ADD KEY " + byStatus() + " (status, updated_at)");
			this.jdbc.execute("ANALYZE TABLE " + this.table);
		}
	}

}
