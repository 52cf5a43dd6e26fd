package dev.idempotent.retention;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.jdbc.ColumnTime;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Removes the rows of the idempotency table that fell out of the retention window (see {@link RetentionPolicy}),
 * archiving or deleting them in transactions of one batch each:
 * <ol>
 * <li>lock the ids of at most {@code batchSize} old rows, oldest first (SUCCEEDED rows, then FAILED ones when
 * included), with {@code FOR UPDATE SKIP LOCKED}: a job running at the same time on another instance skips them and
 * takes the next ones, and rows a claim is working on are left for a later run. The selection reads the index on
 * {@code (status, updated_at)} up to the cutoff only, so a run with nothing due reads no row, however large the
 * table;</li>
 * <li>ARCHIVE: copy those rows into the archive table, whose primary key is the original id, so a row can never be
 * archived twice, with one {@code INSERT ... SELECT ... WHERE id IN (...)} per up to 1,000 ids;</li>
 * <li>delete them by id the same way (see {@link RetentionStatements} for MySQL and MariaDB), commit; repeat until
 * a batch comes back short.</li>
 * </ol>
 * A batch is all or nothing: a failure rolls it back and ends the run with the exception, the batches before it
 * stay committed. "Old" means {@code updated_at} before now minus the period, with now from the job's
 * {@link Clock} in UTC, the zone every time in the table is written in, so neither the JVM's nor the database
 * session's time zone matters. Transactions run in READ COMMITTED, so that on InnoDB the scan locks only the rows
 * it takes, not the gaps where new claims insert. The interrupt flag of the running thread is checked between
 * batches. Thread-safe; runs on the caller's thread.
 *
 * @since 0.1.0
 */
public final class JdbcRetentionJob {

	private static final Logger logger = LoggerFactory.getLogger(JdbcRetentionJob.class);

	private final DataSource dataSource;

	private final SqlDialect dialect;

	private final RetentionPolicy policy;

	private final Clock clock;

	private final RetentionListener listener;

	private final RetentionStatements statements;

	private final SQLExceptionTranslator translator;

	/**
	 * Create a job.
	 * @param dataSource the business database
	 * @param table the idempotency table
	 * @param archive the archive table; required in ARCHIVE mode, ignored in DELETE mode
	 * @param dialect the database's dialect
	 * @param policy which rows go, and how
	 * @param clock the library's clock (its zone does not matter)
	 * @param listener observes batches and runs, e.g. to count them
	 * @throws IllegalArgumentException in ARCHIVE mode without an archive table
	 */
	public JdbcRetentionJob(DataSource dataSource, TableName table, @Nullable TableName archive, SqlDialect dialect,
			RetentionPolicy policy, Clock clock, RetentionListener listener) {
		this(dataSource, table, archive, dialect, policy, clock, listener, false);
	}

	/**
	 * Create a job for a table that may carry payload fingerprints.
	 * @param dataSource the business database
	 * @param table the idempotency table
	 * @param archive the archive table; required in ARCHIVE mode, ignored in DELETE mode
	 * @param dialect the database's dialect
	 * @param policy which rows go, and how
	 * @param clock the library's clock (its zone does not matter)
	 * @param listener observes batches and runs, e.g. to count them
	 * @param fingerprints whether payload fingerprints are on: the archive then also receives the
	 * {@code payload_fingerprint} column (tables created before fingerprints may lack it while they are off)
	 * @throws IllegalArgumentException in ARCHIVE mode without an archive table
	 */
	public JdbcRetentionJob(DataSource dataSource, TableName table, @Nullable TableName archive, SqlDialect dialect,
			RetentionPolicy policy, Clock clock, RetentionListener listener, boolean fingerprints) {
		if (policy.mode() == RetentionMode.ARCHIVE && archive == null) {
			throw new IllegalArgumentException("Retention in ARCHIVE mode needs an archive table");
		}
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.policy = policy;
		this.clock = clock;
		this.listener = listener;
		this.statements = RetentionStatements.of(table, (policy.mode() == RetentionMode.ARCHIVE) ? archive : null,
				dialect, policy.includeFailed(), fingerprints);
		this.translator = new SQLErrorCodeSQLExceptionTranslator(dataSource);
	}

	private JdbcRetentionJob(JdbcRetentionJob job, RetentionStatements statements) {
		this.dataSource = job.dataSource;
		this.dialect = job.dialect;
		this.policy = job.policy;
		this.clock = job.clock;
		this.listener = job.listener;
		this.statements = statements;
		this.translator = job.translator;
	}

	/**
	 * Return a job that also deletes the stored outputs of every claim it removes, in the claim's batch (outputs are
	 * deleted, not archived, in both modes).
	 * @param outputs the output table
	 * @return a new job, never {@code null}
	 * @since 0.1.0
	 */
	public JdbcRetentionJob withOutputs(TableName outputs) {
		return new JdbcRetentionJob(this, this.statements.withOutputs(outputs));
	}

	/**
	 * Return the policy the job applies.
	 * @return the policy, never {@code null}
	 */
	public RetentionPolicy policy() {
		return this.policy;
	}

	/**
	 * Archive or delete every row older than the window, batch by batch, until a batch comes back short or the
	 * thread is interrupted.
	 * @return the number of rows archived or deleted by this run
	 * @throws DataAccessException if a batch fails (it is rolled back; earlier batches stay committed)
	 * @throws IllegalStateException if a batch finds its locked rows changed (it is rolled back)
	 */
	public int run() {
		Instant cutoff = this.policy.cutoff(this.clock.instant()).truncatedTo(ChronoUnit.MICROS);
		LocalDateTime utcCutoff = ColumnTime.of(cutoff);
		int total = 0;
		try {
			int rows;
			do {
				rows = batch(utcCutoff);
				total += rows;
				if (rows > 0) {
					this.listener.onRows(this.policy.mode(), rows);
				}
			}
			while (rows == this.policy.batchSize() && !Thread.currentThread().isInterrupted());
		}
		catch (RuntimeException ex) {
			this.listener.onRun(false);
			throw ex;
		}
		this.listener.onRun(true);
		if (total > 0) {
			logger.info("Retention {} {} rows of {} last updated before {}", this.policy.mode().action(), total,
					this.statements.table(), cutoff);
		}
		return total;
	}

	private int batch(LocalDateTime cutoff) {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			int isolation = connection.getTransactionIsolation();
			connection.setAutoCommit(false);
			connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
			int rows;
			try {
				rows = moveBatch(connection, cutoff);
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				rollback(connection, ex);
				restore(connection, isolation, autoCommit, ex);
				throw ex;
			}
			restore(connection, isolation, autoCommit, null);
			return rows;
		}
		catch (SQLException ex) {
			DataAccessException translated = this.translator.translate("retention of " + this.statements.table(),
					null, ex);
			throw (translated != null) ? translated
					: new UncategorizedSQLException("retention of " + this.statements.table(), null, ex);
		}
	}

	/**
	 * Give the pooled connection its settings back. After a failure, a failure to restore (a broken connection)
	 * is added to it rather than hiding it.
	 */
	private static void restore(Connection connection, int isolation, boolean autoCommit, @Nullable Exception failure)
			throws SQLException {
		try {
			connection.setTransactionIsolation(isolation);
			connection.setAutoCommit(autoCommit);
		}
		catch (SQLException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
	}

	private static void rollback(Connection connection, Exception failure) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
	}

	private int moveBatch(Connection connection, LocalDateTime cutoff) throws SQLException {
		List<LockedClaim> claims = lockBatch(connection, cutoff);
		for (int from = 0; from < claims.size(); from += RetentionStatements.MAX_IDS) {
			List<LockedClaim> chunk = claims.subList(from, Math.min(claims.size(), from + RetentionStatements.MAX_IDS));
			List<Long> ids = chunk.stream().map(LockedClaim::id).toList();
			String archiveRows = this.statements.archiveRows(ids.size());
			if (archiveRows != null) {
				expect(update(connection, archiveRows, ids), ids.size(), "archived");
			}
			String deleteRows = this.statements.deleteRows(ids.size());
			int deleted = this.statements.deleteJoinsIds() ? updateJson(connection, deleteRows, ids)
					: update(connection, deleteRows, ids);
			expect(deleted, ids.size(), "deleted");
		}
		String deleteOutputs = this.statements.deleteOutputs();
		if (deleteOutputs != null && !claims.isEmpty()) {
			deleteOutputs(connection, deleteOutputs, claims);
		}
		return claims.size();
	}

	private static void deleteOutputs(Connection connection, String sql, List<LockedClaim> claims) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			for (LockedClaim claim : claims) {
				ps.setString(1, claim.scope());
				ps.setString(2, claim.key());
				ps.addBatch();
			}
			ps.executeBatch();
		}
	}

	/** Lock the claims of one batch: SUCCEEDED rows first, then (when included) FAILED rows to fill it. */
	private List<LockedClaim> lockBatch(Connection connection, LocalDateTime cutoff) throws SQLException {
		List<LockedClaim> ids = new ArrayList<>(this.policy.batchSize());
		for (String lockBatch : this.statements.lockBatches()) {
			int limit = this.policy.batchSize() - ids.size();
			if (limit == 0) {
				break;
			}
			try (PreparedStatement ps = connection.prepareStatement(lockBatch)) {
				this.dialect.bindTime(ps, 1, cutoff);
				ps.setInt(2, limit);
				try (ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						ids.add(new LockedClaim(rs.getLong(1), rs.getString(2), rs.getString(3)));
					}
				}
			}
		}
		return ids;
	}

	/** Run a statement over a list of ids; the rows changed. */
	private static int update(Connection connection, String sql, List<Long> ids) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			for (int i = 0; i < ids.size(); i++) {
				ps.setLong(i + 1, ids.get(i));
			}
			return ps.executeUpdate();
		}
	}

	/** Run a statement that binds a list of ids as one JSON array; the rows changed. */
	private static int updateJson(Connection connection, String sql, List<Long> ids) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(sql)) {
			ps.setString(1, ids.toString());
			return ps.executeUpdate();
		}
	}

	private void expect(int actual, int expected, String what) {
		if (actual >= 0 && actual != expected) {
			throw new IllegalStateException("Retention of " + this.statements.table() + " " + what + " " + actual
					+ " rows of the " + expected + " it had locked; the batch was rolled back");
		}
	}

	/** A claim row locked by a batch: its id, scope and key. */
	private record LockedClaim(long id, String scope, String key) {
	}

}
