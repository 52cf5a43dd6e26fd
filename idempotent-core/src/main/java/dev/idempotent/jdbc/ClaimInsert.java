package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.key.KeyMasker;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * The verdict of the INSERT of one claim row (a claim of {@link JdbcClaimStore}, a lease of
 * {@link JdbcLeasedClaimStore}), rendered by {@link SqlDialect#claimInsert}: "inserted" or "the key is taken", from the
 * statement's own result, and what it means when the row of a taken key cannot then be read.
 * <p>On MySQL and MariaDB the INSERT is an {@code INSERT IGNORE}, so that a duplicate raises no server error: drivers
 * such as mariadb-java-client log every server error at WARN with the server's message, which holds the scope and the
 * key in clear, once per idempotent hit. {@code IGNORE} also skips a row that violates another unique constraint, and
 * stores a value the column cannot hold (too long; characters outside its character set) altered, with a warning. So:
 * <ul>
 * <li>MariaDB ({@code RETURNING}): a returned (scope, key) that is not the requested one, or more than one row, fails
 * the claim, and so does a returned row that left a warning (another column stored altered, e.g. a source topic
 * longer than its column);</li>
 * <li>MySQL (update count): an inserted row that left a warning fails the claim (the driver reads the warnings only
 * when the server reported some, so a clean claim stays one statement);</li>
 * <li>both: a skipped key is then read with a locking (current) read by the caller; no row means that another
 * constraint was violated, or that the key was stored altered as an existing key: an error (see
 * {@link #rowNotFound}).</li>
 * </ul>
 * A failed claim leaves the row it may have inserted to the rollback of the caller's transaction, which the error
 * causes. Deadlocks and lock-wait timeouts stay errors under {@code IGNORE} and are transient as before.
 * <p>Thread-safe.
 */
final class ClaimInsert {

	private final DataSource dataSource;

	private final TableName table;

	private final SqlDialect dialect;

	private final String latestCommittedRead;

	ClaimInsert(DataSource dataSource, TableName table, SqlDialect dialect) {
		this.dataSource = outsideTransactions(dataSource);
		this.table = table;
		this.dialect = dialect;
		this.latestCommittedRead = "SELECT 1 FROM " + table.value() + " WHERE scope = ? AND idempotency_key = ?";
	}

	/**
	 * Run a bound claim INSERT of one row.
	 * @param ps the statement rendered by {@link SqlDialect#claimInsert}, its parameters bound
	 * @param request the claim the row is for
	 * @return {@code true} if the row was inserted, {@code false} if the key is taken (or, on MySQL and MariaDB, if the
	 * row was skipped for another reason, which the caller's read of the key's row then finds)
	 * @throws DataIntegrityViolationException if the row was stored altered, or another unique constraint was
	 * violated (PostgreSQL)
	 * @throws SQLException any other error of the statement
	 */
	boolean run(PreparedStatement ps, ClaimRequest request) throws SQLException {
		try {
			return switch (this.dialect) {
				case MARIADB -> returnedRow(ps, request);
				case MYSQL -> countedRow(ps, request);
				case POSTGRESQL, H2 -> ps.executeUpdate() == 1;
			};
		}
		catch (SQLException ex) {
			if (!this.dialect.isDuplicateKey(ex)) {
				throw ex;
			}
			if (this.dialect == SqlDialect.POSTGRESQL) {
				// ON CONFLICT (scope, idempotency_key) absorbs that index's duplicates: this one is another's (and the
				// transaction is aborted, so no read could follow)
				throw otherConstraint(request, ex);
			}
			return false;
		}
	}

	private boolean returnedRow(PreparedStatement ps, ClaimRequest request) throws SQLException {
		noCursor(ps);
		// execute, not executeQuery: mysql-connector-j refuses executeQuery for an INSERT, even with RETURNING
		if (!ps.execute()) {
			throw new IllegalStateException("The claim INSERT ... RETURNING returned no result set");
		}
		try (ResultSet rs = ps.getResultSet()) {
			if (!rs.next()) {
				return false;
			}
			boolean requested = request.scope().equals(rs.getString(1)) && request.key().equals(rs.getString(2));
			if (!requested || rs.next()) {
				throw alteredKey(request);
			}
		}
		// the returned key is the requested one, but IGNORE may have stored another column altered (a source topic
		// longer than its column, a value out of range): the inserted row's warnings tell
		requireNoWarnings(ps, request);
		return true;
	}

	/**
	 * Read the rows an {@code INSERT ... RETURNING} returns at once, never through a server-side cursor: under
	 * {@code useCursorFetch=true} (a fetch size above 0), mysql-connector-j 9.4 (Spring Boot 3.5's) waits forever for
	 * the rows of such an INSERT that returned none, which is every hit (9.7 does not).
	 */
	static void noCursor(PreparedStatement ps) throws SQLException {
		ps.setFetchSize(0);
	}

	private boolean countedRow(PreparedStatement ps, ClaimRequest request) throws SQLException {
		int rows = ps.executeUpdate();
		if (rows == 0) {
			return false;
		}
		if (rows != 1) {
			throw alteredRow(request, null);
		}
		requireNoWarnings(ps, request);
		return true;
	}

	/**
	 * Fail the claim if the INSERT that inserted its row left a warning: {@code IGNORE} turned an error (a value the
	 * column cannot hold) into a warning and stored the value altered. Drivers read the warnings (SHOW WARNINGS) only
	 * when the server reported some, so a clean claim stays one statement.
	 */
	private void requireNoWarnings(PreparedStatement ps, ClaimRequest request) throws SQLException {
		SQLWarning warnings = ps.getWarnings();
		if (warnings != null) {
			throw alteredRow(request, warnings);
		}
	}

	/**
	 * Fail a multi-row claim INSERT of MariaDB's {@code INSERT IGNORE ... RETURNING} that left a warning other than a
	 * skipped duplicate: {@code IGNORE} stored a value of an inserted row altered (a source topic longer than its
	 * column, a value out of range). Its caller's transaction rolls back every row of the statement.
	 * @param ps the executed statement, its result set read
	 * @param request a claim of the statement
	 * @throws DataIntegrityViolationException if a warning is not a duplicate's
	 * @throws SQLException if the warnings cannot be read
	 */
	void requireOnlyDuplicateWarnings(PreparedStatement ps, ClaimRequest request) throws SQLException {
		SQLWarning warnings = ps.getWarnings();
		for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
			if (!this.dialect.isDuplicateKey(new SQLException(warning.getMessage(), warning.getSQLState(),
					warning.getErrorCode()))) {
				throw alteredRow(request, warnings);
			}
		}
	}

	private DataIntegrityViolationException alteredRow(ClaimRequest request, @Nullable SQLWarning warnings) {
		return new DataIntegrityViolationException("The claim INSERT into " + this.table + " of scope="
				+ request.scope() + " key=" + KeyMasker.MASKED.mask(request.key()) + " stored the row altered"
				+ " (warnings " + codes(warnings) + ": values truncated or characters replaced): the table cannot hold"
				+ " the claim; check its definition (see SchemaValidator)");
	}

	private static List<Integer> codes(@Nullable SQLWarning warnings) {
		List<Integer> codes = new ArrayList<>();
		for (SQLWarning warning = warnings; warning != null && codes.size() < 10; warning = warning.getNextWarning()) {
			codes.add(warning.getErrorCode());
		}
		return codes;
	}

	/**
	 * Tell whether the row of a key the INSERT found taken may be deleted before the caller's read of it: on H2, whose
	 * duplicate check locks nothing, the retention job may delete it in between; the caller then runs the INSERT once
	 * more, whose own result decides, before {@link #rowNotFound}. On InnoDB the INSERT holds a shared lock on the row
	 * until the transaction ends; on PostgreSQL {@link #rowNotFound} treats a missing row as deleted.
	 * @return whether a missing row deserves a second INSERT
	 */
	boolean rowMayVanish() {
		return this.dialect == SqlDialect.H2;
	}

	/**
	 * What it means that the INSERT found the key taken but a read of the key's row (see
	 * {@link SqlDialect#lockingReadSuffix()}) found none.
	 * <ul>
	 * <li>MySQL, MariaDB: the read is a current read, so another unique constraint was violated (or {@code IGNORE}
	 * stored the key altered as an existing one): an error.</li>
	 * <li>PostgreSQL: {@code ON CONFLICT (scope, idempotency_key)} reported this very key and reads see the latest
	 * committed rows, so the row was deleted since (by retention) and the key can now be claimed: transient.</li>
	 * <li>H2 (after a second INSERT, see {@link #rowMayVanish}): under READ COMMITTED the read sees the latest
	 * committed rows. Under REPEATABLE READ and above even a locking read sees only the transaction's snapshot. So the
	 * row is looked up on a connection of its own, which sees the latest committed rows: a row committed after the
	 * snapshot is transient (a new transaction sees it), no row an error. The connection is borrowed from the target
	 * of a {@link TransactionAwareDataSourceProxy}, which would hand out the transaction's own connection; it is a
	 * second connection of the pool (a pool of one waits for its connection timeout, then the claim fails), and a
	 * JTA DataSource that hands out a connection enlisted in the current transaction cannot make that look-up.</li>
	 * </ul>
	 * @param request the claim
	 * @return the exception to throw: a {@link TransientClaimException} or a {@link DataIntegrityViolationException}
	 * @throws SQLException if the row cannot be looked up (H2)
	 */
	RuntimeException rowNotFound(ClaimRequest request) throws SQLException {
		return switch (this.dialect) {
			case POSTGRESQL -> new TransientClaimException("The row of scope=" + request.scope() + " was removed while"
					+ " it was being claimed; retry the transaction", new SQLException("row removed", "40001"));
			case H2 -> latestCommittedRowExists(request)
					? new TransientClaimException("The row of scope=" + request.scope() + " key="
							+ KeyMasker.MASKED.mask(request.key()) + " is not visible to this transaction's snapshot;"
							+ " retry the transaction", new SQLException("row not visible", "40001"))
					: otherConstraint(request, null);
			case MYSQL, MARIADB -> otherConstraint(request, null);
		};
	}

	/**
	 * The data source that hands out connections of their own: a {@link TransactionAwareDataSourceProxy} hands out the
	 * connection of the current transaction, whose reads see the transaction's snapshot, so its target is used.
	 */
	private static DataSource outsideTransactions(DataSource dataSource) {
		DataSource target = dataSource;
		while (target instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
			target = proxy.getTargetDataSource();
		}
		return target;
	}

	/** Whether the key's row exists as of now, read on a connection of its own, outside the claim's transaction. */
	private boolean latestCommittedRowExists(ClaimRequest request) throws SQLException {
		try (Connection own = this.dataSource.getConnection();
				PreparedStatement ps = own.prepareStatement(this.latestCommittedRead)) {
			ps.setString(1, request.scope());
			ps.setString(2, request.key());
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next();
			}
		}
	}

	/**
	 * The error of a claim whose INSERT violated a unique constraint other than (scope, idempotency_key).
	 * @param request the claim
	 * @param cause the duplicate-key error, if the server raised one
	 * @return the error, never {@code null}
	 */
	DataIntegrityViolationException otherConstraint(ClaimRequest request, @Nullable SQLException cause) {
		return new DataIntegrityViolationException("The claim INSERT into " + this.table + " violated a unique "
				+ "constraint other than (scope, idempotency_key) for scope=" + request.scope() + " key="
				+ KeyMasker.MASKED.mask(request.key()) + ": check the table's constraints (see SchemaValidator)", cause);
	}

	/**
	 * The error of a claim INSERT that returned a row whose (scope, key) is none of the requested ones: MariaDB's
	 * {@code IGNORE} stored it altered, because the column is shorter than the value or its character set cannot hold
	 * the value's characters.
	 * @param request a claim of the statement
	 * @return the error, never {@code null}
	 */
	DataIntegrityViolationException alteredKey(ClaimRequest request) {
		return new DataIntegrityViolationException("The claim INSERT into " + this.table + " stored a key of scope="
				+ request.scope() + " altered (truncated or with characters replaced): the key column cannot hold the"
				+ " keys; check the table's definition (see SchemaValidator)");
	}

}
