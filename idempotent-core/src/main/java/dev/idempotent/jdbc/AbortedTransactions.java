package dev.idempotent.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * Tells whether a PostgreSQL transaction was aborted by a failed statement (every later statement fails with
 * SQLState 25P02 and the COMMIT silently rolls back). With PgJDBC the driver's own transaction state is read, with
 * no round trip; with another driver, {@code SELECT 1} is sent, which fails on an aborted transaction. Thread-safe.
 */
final class AbortedTransactions {

	/** PostgreSQL's "in failed SQL transaction". */
	private static final String IN_FAILED_TRANSACTION = "25P02";

	private static final @Nullable Class<?> PGJDBC_CONNECTION = pgjdbcConnection();

	private static final @Nullable Method TRANSACTION_STATE = transactionState(PGJDBC_CONNECTION);

	private AbortedTransactions() {
	}

	/**
	 * Throw if the transaction of {@code connection} was aborted.
	 * @param connection the transaction's connection, on PostgreSQL
	 * @throws InvalidDataAccessApiUsageException if it was aborted, saying what to do instead
	 * @throws org.springframework.dao.DataAccessException if the check itself fails
	 */
	static void requireUsable(Connection connection) {
		if (aborted(connection)) {
			throw new InvalidDataAccessApiUsageException("The claim's transaction can only roll back: a statement in it"
					+ " failed (PostgreSQL then aborts the whole transaction, claim included, and would answer the commit"
					+ " with a silent rollback), and the exception was caught inside the listener. Let the exception"
					+ " propagate, or run the statement that may fail in a nested transaction (propagation NESTED, a"
					+ " savepoint) so that its failure rolls back only itself.");
		}
	}

	private static boolean aborted(Connection connection) {
		try {
			if (TRANSACTION_STATE != null && PGJDBC_CONNECTION != null && connection.isWrapperFor(PGJDBC_CONNECTION)) {
				Object state = TRANSACTION_STATE.invoke(connection.unwrap(PGJDBC_CONNECTION));
				return "FAILED".equals(String.valueOf(state));
			}
			try (Statement statement = connection.createStatement()) {
				statement.execute("SELECT 1");
				return false;
			}
		}
		catch (SQLException ex) {
			if (IN_FAILED_TRANSACTION.equals(ex.getSQLState())) {
				return true;
			}
			throw new InvalidDataAccessApiUsageException("Could not tell whether the claim's transaction was aborted", ex);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new InvalidDataAccessApiUsageException("Could not read PgJDBC's transaction state", ex);
		}
	}

	private static @Nullable Class<?> pgjdbcConnection() {
		try {
			return Class.forName("org.postgresql.core.BaseConnection", false, AbortedTransactions.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	private static @Nullable Method transactionState(@Nullable Class<?> connectionType) {
		if (connectionType == null) {
			return null;
		}
		try {
			return connectionType.getMethod("getTransactionState");
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

}
