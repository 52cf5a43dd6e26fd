package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

/**
 * The databases the JDBC claim store supports, and what differs between them: the DDL file, how the claim
 * INSERT reports a duplicate, and how a transient failure is recognised. Errors are recognised by vendor error
 * code and SQLState, never by message text, which changes with the server's language.
 * <ul>
 * <li>MySQL and MariaDB: a duplicate is error 1062 (or 1586) and does not abort the transaction; the claim INSERT of
 * one row is an {@code INSERT IGNORE}, so that a duplicate is reported as a warning and the statement's own result (no
 * row returned, or 0 rows) instead of an error (some drivers log every error the server reports, with its message,
 * which holds the key). Transient: 1213 (deadlock), 1205 (lock-wait timeout) and, on MariaDB 11.6+ with snapshot
 * isolation, 1020 (record changed); {@code IGNORE} does not turn those into warnings.</li>
 * <li>PostgreSQL: a unique violation (23505) would abort the whole transaction (every later statement fails
 * with 25P02 and the commit silently rolls back), so the claim is {@code INSERT ... ON CONFLICT DO NOTHING}:
 * 0 rows means duplicate, no error is raised and the server log stays clean. Transient: 40001 (serialization
 * failure, e.g. a conflicting row committed after a REPEATABLE READ snapshot), 40P01 (deadlock) and 55P03
 * (lock not available).</li>
 * <li>H2: a duplicate is 23505 and does not abort the transaction. Transient: 40001 (deadlock) and 50200
 * (lock timeout).</li>
 * </ul>
 * Thread-safe (an enum).
 *
 * @since 0.1.0
 */
public enum SqlDialect {

	/** MySQL 8.x. */
	MYSQL("mysql", "", " LOCK IN SHARE MODE", Set.of(1062, 1586), Set.of(1213, 1205), false),

	/**
	 * MariaDB 10.6 and later. Times are bound as text: MariaDB 10.x announces itself as server version
	 * "5.5.5-10.x", from which mysql-connector-j concludes that it has no fractional seconds and truncates bound
	 * temporal values to whole seconds.
	 */
	MARIADB("mariadb", "", " LOCK IN SHARE MODE", Set.of(1062, 1586), Set.of(1213, 1205, 1020), true),

	/** PostgreSQL 13 and later. */
	POSTGRESQL("postgresql", " ON CONFLICT (scope, idempotency_key) DO NOTHING", "", Set.of(), Set.of(), false),

	/** H2 2.x, in any compatibility mode. */
	H2("h2", "", " FOR UPDATE", Set.of(23505), Set.of(40001, 50200), false);

	private static final Set<String> DUPLICATE_STATES = Set.of("23505");

	private static final Set<String> TRANSIENT_STATES = Set.of("40001", "40P01", "55P03");

	/** PostgreSQL's SQLStates of a transaction it rolled back for a conflict: serialization failure, deadlock. */
	private static final Set<String> CONFLICT_STATES = Set.of("40001", "40P01");

	/**
	 * MySQL and MariaDB's deadlock (ER_LOCK_DEADLOCK), which a Galera node also raises for a brute-force abort and a
	 * certification failure.
	 */
	private static final int DEADLOCK = 1213;

	/** MySQL and MariaDB's "record has changed since last read" (ER_CHECKREAD; MariaDB 11.6+ snapshot isolation). */
	private static final int RECORD_CHANGED = 1020;

	/** MySQL Group Replication's certification failure at COMMIT (ER_TRANSACTION_ROLLBACK_DURING_COMMIT). */
	private static final int GROUP_REPLICATION_ROLLBACK = 3101;

	/** H2's deadlock (it rolls the whole transaction back). */
	private static final int H2_DEADLOCK = 40001;

	private final String id;

	private final String insertSuffix;

	private final String lockingReadSuffix;

	private final Set<Integer> duplicateKeyCodes;

	private final Set<Integer> transientCodes;

	private final boolean bindsTimeAsText;

	SqlDialect(String id, String insertSuffix, String lockingReadSuffix, Set<Integer> duplicateKeyCodes,
			Set<Integer> transientCodes, boolean bindsTimeAsText) {
		this.id = id;
		this.insertSuffix = insertSuffix;
		this.lockingReadSuffix = lockingReadSuffix;
		this.duplicateKeyCodes = duplicateKeyCodes;
		this.transientCodes = transientCodes;
		this.bindsTimeAsText = bindsTimeAsText;
	}

	/**
	 * Return what follows the VALUES clause of the claim INSERT: an {@code ON CONFLICT} clause where a
	 * duplicate must not raise an error, else nothing.
	 * @return the suffix, possibly empty
	 */
	String insertSuffix() {
		return this.insertSuffix;
	}

	/**
	 * Render the INSERT of one claim row (a claim, or a lease) so that the server reports a duplicate of the idempotency
	 * index without an error where the database allows it; {@link ClaimInsert#run} reads its result.
	 * <ul>
	 * <li>MariaDB: {@code INSERT IGNORE ... RETURNING scope, idempotency_key}: no row returned means the row was
	 * skipped.</li>
	 * <li>MySQL (no {@code RETURNING}): {@code INSERT IGNORE}: 0 rows means the row was skipped.</li>
	 * <li>PostgreSQL: {@code INSERT ... ON CONFLICT (scope, idempotency_key) DO NOTHING}: 0 rows means the key
	 * exists.</li>
	 * <li>H2: a plain INSERT; a duplicate is an error (23505), which H2 does not log.</li>
	 * </ul>
	 * {@code IGNORE} also skips a row that violates another unique constraint, and stores a value the column cannot hold
	 * altered (truncated, characters replaced) with a warning: {@link ClaimInsert} guards against both.
	 * @param target the table, its columns and the VALUES clause of one row: {@code t (a, b) VALUES (?, ?)}
	 * @return the statement
	 */
	String claimInsert(String target) {
		return switch (this) {
			case MARIADB -> "INSERT IGNORE INTO " + target + " RETURNING scope, idempotency_key";
			case MYSQL -> "INSERT IGNORE INTO " + target;
			case POSTGRESQL, H2 -> "INSERT INTO " + target + this.insertSuffix;
		};
	}

	/**
	 * Return the verb of the multi-row claim INSERT that skips the rows of keys that exist, instead of failing as a
	 * whole, and reports the rows it inserted with {@code RETURNING}; {@code null} where the database has no such
	 * statement (MySQL has no {@code RETURNING}; H2).
	 * <ul>
	 * <li>PostgreSQL: {@code INSERT INTO}, followed by {@link #insertSuffix()}'s {@code ON CONFLICT (scope,
	 * idempotency_key) DO NOTHING}, which skips duplicates of that index only.</li>
	 * <li>MariaDB 10.5 and later: {@code INSERT IGNORE INTO}. {@code IGNORE} also skips rows that violate another
	 * constraint and stores values the column cannot hold altered (truncated, characters replaced) with a
	 * warning; the caller must therefore check that every returned key is one it asked for, and that every key not
	 * returned has its own row (see {@link JdbcClaimStore#claimAll}).</li>
	 * </ul>
	 * A skipped row of a key held by a concurrent, uncommitted claim is skipped only after that claim committed: the
	 * statement waits on the unique index as a plain INSERT does.
	 * @return the verb, or {@code null}
	 */
	@Nullable String skippingInsertVerb() {
		return switch (this) {
			case POSTGRESQL -> "INSERT INTO";
			case MARIADB -> "INSERT IGNORE INTO";
			case MYSQL, H2 -> null;
		};
	}

	/**
	 * Return what turns the read of an existing row after a duplicate into a locking (current) read: on
	 * MySQL/MariaDB a plain read under REPEATABLE READ could miss a row committed after the transaction's snapshot. On
	 * InnoDB the INSERT (plain or {@code IGNORE}) that found the key taken already holds a shared lock on the row, so a
	 * shared locking read adds no new lock conflict. H2 reads even a locking read from the transaction's snapshot
	 * under REPEATABLE READ and SERIALIZABLE (see {@link ClaimInsert#rowNotFound}). PostgreSQL needs none: there, a
	 * conflict with a row the snapshot cannot see is a serialization failure (40001).
	 * @return the suffix, possibly empty
	 */
	String lockingReadSuffix() {
		return this.lockingReadSuffix;
	}

	/**
	 * Tell whether the key and scope columns need a binary, NO PAD collation to compare byte for byte (the
	 * MySQL family's defaults are case- and accent-insensitive and PAD SPACE).
	 * @return whether the collation of the key columns must be checked
	 */
	public boolean needsBinaryCollation() {
		return isMySqlFamily();
	}

	private boolean isMySqlFamily() {
		return this == MYSQL || this == MARIADB;
	}

	/**
	 * Bind a UTC date-time to a {@code DATETIME(6)}/{@code TIMESTAMP(6)} parameter without any time-zone
	 * conversion and with its microseconds.
	 * @param statement the statement
	 * @param index the parameter index, from 1
	 * @param utc the UTC wall-clock time, at most microsecond precision
	 * @throws SQLException if binding fails
	 */
	public void bindTime(PreparedStatement statement, int index, LocalDateTime utc) throws SQLException {
		if (this.bindsTimeAsText) {
			statement.setString(index, ColumnTime.text(utc));
		}
		else {
			statement.setObject(index, utc);
		}
	}

	/**
	 * Return the clause that limits a query to one page of rows, appended after its {@code ORDER BY}: {@code LIMIT ?
	 * OFFSET ?} on MySQL and MariaDB, the standard {@code OFFSET ? ROWS FETCH NEXT ? ROWS ONLY} on PostgreSQL and
	 * H2. Bind its two parameters with {@link #bindPage}.
	 * @return the clause, starting with a space
	 */
	public String pageClause() {
		return isMySqlFamily() ? " LIMIT ? OFFSET ?" : " OFFSET ? ROWS FETCH NEXT ? ROWS ONLY";
	}

	/**
	 * Bind the two parameters of {@link #pageClause()}, in this dialect's order.
	 * @param statement the statement
	 * @param index the index of the clause's first parameter, from 1
	 * @param offset how many rows to skip, 0 or more
	 * @param limit how many rows to return at most, 1 or more
	 * @throws SQLException if binding fails
	 */
	public void bindPage(PreparedStatement statement, int index, long offset, int limit) throws SQLException {
		if (isMySqlFamily()) {
			statement.setInt(index, limit);
			statement.setLong(index + 1, offset);
		}
		else {
			statement.setLong(index, offset);
			statement.setInt(index + 1, limit);
		}
	}

	/**
	 * Return the short name used in the DDL file name and in configuration.
	 * @return e.g. {@code "mariadb"}
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Return the classpath location of this dialect's DDL, also shipped as {@code sql/schema-<id>.sql}.
	 * @return e.g. {@code "dev/idempotent/jdbc/schema/schema-mariadb.sql"}
	 */
	public String schemaLocation() {
		return "dev/idempotent/jdbc/schema/schema-" + this.id + ".sql";
	}

	/**
	 * Return the classpath location of this dialect's DDL of the archive table (retention in ARCHIVE mode), also
	 * shipped as {@code sql/schema-<id>-archive.sql}.
	 * @return e.g. {@code "dev/idempotent/jdbc/schema/schema-mariadb-archive.sql"}
	 */
	public String archiveSchemaLocation() {
		return "dev/idempotent/jdbc/schema/schema-" + this.id + "-archive.sql";
	}

	/**
	 * Return the classpath location of this dialect's DDL for the table of stored outputs, also shipped as
	 * {@code sql/schema-<id>-output.sql}.
	 * @return e.g. {@code "dev/idempotent/jdbc/schema/schema-mariadb-output.sql"}
	 * @since 0.1.0
	 */
	public String outputSchemaLocation() {
		return "dev/idempotent/jdbc/schema/schema-" + this.id + "-output.sql";
	}

	/**
	 * Return the classpath location of this dialect's DDL for the table of consumed offsets stored with the claims,
	 * also shipped as {@code sql/schema-<id>-offset.sql}.
	 * @return e.g. {@code "dev/idempotent/jdbc/schema/schema-mariadb-offset.sql"}
	 * @since 0.1.0
	 */
	public String offsetSchemaLocation() {
		return "dev/idempotent/jdbc/schema/schema-" + this.id + "-offset.sql";
	}

	/**
	 * Return what follows {@code ORDER BY} in the retention job's selection of a batch: a row limit bound as one
	 * parameter, then an exclusive lock that skips rows other transactions hold, so that jobs running at once on
	 * several instances take disjoint batches and never wait for a claim in progress. Every supported database has
	 * {@code SKIP LOCKED} (MySQL 8, MariaDB 10.6, PostgreSQL 9.5, H2 2.x); MySQL and MariaDB have no
	 * {@code FETCH FIRST}.
	 * @return the clause, starting with a space; binds the batch size
	 */
	public String lockBatchClause() {
		return switch (this) {
			case MYSQL, MARIADB -> " LIMIT ? FOR UPDATE SKIP LOCKED";
			case POSTGRESQL, H2 -> " FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
		};
	}

	/**
	 * Tell whether an exception raised by the claim INSERT is a unique-key violation. Only call it for errors of
	 * the claim statement itself; which constraint was violated is then confirmed by reading the row by (scope,
	 * key), since drivers report the constraint only in the message text.
	 * @param ex the exception, never {@code null}
	 * @return whether it signals a duplicate key
	 */
	public boolean isDuplicateKey(SQLException ex) {
		return matches(ex, DUPLICATE_STATES, this.duplicateKeyCodes);
	}

	/**
	 * Tell whether an exception is a deadlock, lock-wait timeout or serialization failure that a retry of the
	 * whole transaction resolves.
	 * @param ex the exception, never {@code null}
	 * @return whether it is transient
	 */
	public boolean isTransient(SQLException ex) {
		return matches(ex, TRANSIENT_STATES, this.transientCodes);
	}

	/**
	 * Tell whether an exception is one the database raises when it rolls the whole transaction back for a conflict with
	 * another transaction: a deadlock victim (MySQL and MariaDB 1213, which a Galera node also raises for a certification
	 * failure or a brute-force abort; PostgreSQL 40P01; H2 40001), a record changed since it was read under MariaDB's
	 * snapshot isolation (1020), a certification failure of MySQL Group Replication (3101), a serialization failure
	 * (PostgreSQL 40001). Lock-wait timeouts (1205, 55P03, H2 50200) fail one statement and leave the transaction open:
	 * they are transient ({@link #isTransient}) but no such conflict. On MySQL and MariaDB only vendor codes count,
	 * since mysql-connector-j gives a lock-wait timeout the SQLState of a deadlock.
	 * @param ex the exception, never {@code null}
	 * @return whether the database rolled the transaction back for a conflict
	 */
	public boolean isConflict(SQLException ex) {
		return switch (this) {
			// by vendor code only: mysql-connector-j reports a lock-wait timeout (1205, the transaction stays open) with
			// SQLState 40001 too
			case MYSQL -> matches(ex, Set.of(), Set.of(DEADLOCK, RECORD_CHANGED, GROUP_REPLICATION_ROLLBACK));
			case MARIADB -> matches(ex, Set.of(), Set.of(DEADLOCK, RECORD_CHANGED));
			case POSTGRESQL -> matches(ex, CONFLICT_STATES, Set.of());
			case H2 -> matches(ex, Set.of(), Set.of(H2_DEADLOCK));
		};
	}

	private static boolean matches(SQLException ex, Set<String> states, Set<Integer> codes) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql
					&& (codes.contains(sql.getErrorCode()) || (sql.getSQLState() != null && states.contains(sql.getSQLState())))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Detect the dialect from a connection's metadata.
	 * @param metaData the metadata of a connection to the database, never {@code null}
	 * @return the dialect
	 * @throws SQLException if the metadata cannot be read
	 * @throws UnsupportedDatabaseException if the database is not supported
	 */
	public static SqlDialect detect(DatabaseMetaData metaData) throws SQLException {
		String product = metaData.getDatabaseProductName();
		String version = metaData.getDatabaseProductVersion();
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		if (name.contains("mariadb") || (name.contains("mysql") && version != null
				&& version.toLowerCase(Locale.ROOT).contains("mariadb"))) {
			return MARIADB;
		}
		if (name.contains("mysql")) {
			return MYSQL;
		}
		if (name.equals("h2")) {
			return H2;
		}
		if (name.contains("postgresql")) {
			return POSTGRESQL;
		}
		throw new UnsupportedDatabaseException(product + " " + version);
	}

	/**
	 * Detect the dialect of a data source, borrowing one connection.
	 * @param dataSource the business database, never {@code null}
	 * @return the dialect
	 * @throws UnsupportedDatabaseException if the database is not supported
	 * @throws IllegalStateException if no connection can be obtained
	 */
	public static SqlDialect detect(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			return detect(connection.getMetaData());
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the database metadata to detect the SQL dialect of "
					+ "the idempotency table; set idempotent.jdbc.dialect to skip detection", ex);
		}
	}

	/**
	 * Return the dialect with the given {@link #id()}, ignoring case.
	 * @param id the short name, e.g. {@code "mysql"}
	 * @return the dialect
	 * @throws IllegalArgumentException if no dialect has that name
	 */
	public static SqlDialect fromId(String id) {
		return Arrays.stream(values())
			.filter((dialect) -> dialect.id.equalsIgnoreCase(id))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Unknown idempotency SQL dialect '" + id
					+ "'; supported: " + supportedIds()));
	}

	static String supportedIds() {
		return Arrays.stream(values()).map(SqlDialect::id).collect(Collectors.joining(", "));
	}

	/**
	 * Thrown when the database is not one of the supported ones.
	 */
	public static final class UnsupportedDatabaseException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		UnsupportedDatabaseException(@Nullable String database) {
			super("Unsupported database for the idempotency table: " + database + ". Supported: "
					+ supportedIds() + ". If the database is compatible with one of them, set the dialect "
					+ "explicitly (property idempotent.jdbc.dialect).");
		}

	}

}
