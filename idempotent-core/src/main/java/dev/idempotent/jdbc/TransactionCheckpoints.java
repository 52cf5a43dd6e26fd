package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.TransientClaimException;
import org.jspecify.annotations.Nullable;

/**
 * Sets the {@link ClaimCheckpoint} of each database in the current transaction (see that type for why):
 * <ul>
 * <li>MySQL and MariaDB: a savepoint of its own name, set after the claims and released before the commit. A
 * transaction the server rolled back has lost its savepoints, and one begun since has never had this one: the
 * release then fails with error 1305. Two short statements per transaction that claimed something.</li>
 * <li>H2: the transaction's id ({@code TRANSACTION_ID()}), read after the claims and again before the commit. (H2
 * releases a savepoint it does not know without an error.)</li>
 * <li>PostgreSQL: the server never begins a transaction on its own; it keeps an aborted one aborted until the client
 * ends it. The check reads the transaction's state before the commit (PgJDBC's own, no round trip; see
 * {@link AbortedTransactions}).</li>
 * </ul>
 * A transaction found rolled back is a {@link TransientClaimException}: the claims and the work run again. Thread-safe.
 */
final class TransactionCheckpoints {

	/** MySQL and MariaDB's "SAVEPOINT ... does not exist". */
	private static final int NO_SUCH_SAVEPOINT = 1305;

	private static final String SAVEPOINT_PREFIX = "idempotent_claim_";

	/** Savepoint names: unique in the JVM, so that nested claims on one transaction each release their own. */
	private static final AtomicLong names = new AtomicLong();

	private final TransactionalJdbc jdbc;

	TransactionCheckpoints(TransactionalJdbc jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Set a checkpoint in the current transaction.
	 * @return the checkpoint
	 * @throws TransientClaimException if the database reports that it rolled the transaction back
	 * @throws org.springframework.dao.DataAccessException if the checkpoint cannot be set
	 */
	ClaimCheckpoint set() {
		return switch (this.jdbc.dialect()) {
			case MYSQL, MARIADB -> savepoint();
			case H2 -> transactionId();
			case POSTGRESQL -> this::requireNotAborted;
		};
	}

	private ClaimCheckpoint savepoint() {
		String name = SAVEPOINT_PREFIX + names.incrementAndGet();
		onConnection("setting the checkpoint of the claims", (statement) -> statement.execute("SAVEPOINT " + name));
		return () -> onConnection("checking the claims' transaction", (statement) -> {
			try {
				return statement.execute("RELEASE SAVEPOINT " + name);
			}
			catch (SQLException ex) {
				if (ex.getErrorCode() == NO_SUCH_SAVEPOINT) {
					throw rolledBack("its savepoint " + name + " is gone", ex);
				}
				throw ex;
			}
		});
	}

	private ClaimCheckpoint transactionId() {
		Object id = onConnection("setting the checkpoint of the claims", TransactionCheckpoints::transactionId);
		if (id == null) {
			return ClaimCheckpoint.NONE; // nothing written: no transaction to lose
		}
		return () -> {
			Object now = onConnection("checking the claims' transaction", TransactionCheckpoints::transactionId);
			if (!Objects.equals(id, now)) {
				throw rolledBack("its id changed from " + id + " to " + now, null);
			}
		};
	}

	private static @Nullable Object transactionId(Statement statement) throws SQLException {
		try (ResultSet rs = statement.executeQuery("SELECT TRANSACTION_ID()")) {
			return rs.next() ? rs.getObject(1) : null;
		}
	}

	private void requireNotAborted() {
		Connection connection = this.jdbc.connection();
		try {
			AbortedTransactions.requireUsable(connection);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	/** Run statements on the transaction's connection, translating their failures. */
	private <T extends @Nullable Object> T onConnection(String task, StatementWork<T> work) {
		Connection connection = this.jdbc.connection();
		try (Statement statement = connection.createStatement()) {
			return work.run(statement);
		}
		catch (SQLException ex) {
			throw this.jdbc.translate(task, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	private static TransientClaimException rolledBack(String evidence, @Nullable Throwable cause) {
		return new TransientClaimException("The database rolled back the transaction of the claims without an error"
				+ " reaching the application (" + evidence + "): a deadlock the listener caught, or a cluster node's"
				+ " abort hidden by a bulk statement (see docs/semantics.md, \"Transactions the database ended\"); the"
				+ " claims and the work run again", (cause != null) ? cause : new SQLException(evidence, "40001"));
	}

	@FunctionalInterface
	private interface StatementWork<T extends @Nullable Object> {

		T run(Statement statement) throws SQLException;

	}

}
