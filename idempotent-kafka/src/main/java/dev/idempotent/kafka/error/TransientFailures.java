package dev.idempotent.kafka.error;

import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

import dev.idempotent.claim.ClaimInProgressException;
import dev.idempotent.claim.ClaimTransactionLostException;
import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.kafka.offset.StoredOffsetMovedException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * Tells failures that go away by themselves (the database is restarting or unreachable, a claim lost a lock
 * race, the database rolled the claim's transaction back for a conflict with another transaction, a deadlock or a
 * cluster node's, a lease is held by another consumer, the stored offset
 * of the partition moved) from failures of the record. Other transient failures of the
 * listener's own work (an optimistic-locking conflict, a query or lock-wait timeout) are not among them: they get the
 * normal retries and then the dead-letter topic, so that a record that always fails that way cannot stall its
 * partition forever. The first kind is retried until it
 * passes, never dead-lettered: dead-lettering a good record because its database was down for a minute would
 * lose it from the main flow. Thread-safe.
 *
 * @since 0.1.0
 */
public final class TransientFailures {

	private TransientFailures() {
	}

	/**
	 * Tell whether a failure, or any of its causes, is transient.
	 * @param failure the failure, may be {@code null}
	 * @return whether retrying later will pass without any change to the record
	 */
	public static boolean isTransient(Throwable failure) {
		for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
			if (t instanceof ClaimTransactionLostException) {
				return false; // transient on each run, but every run failed the same way: a failure of the record
			}
			if (t instanceof TransientClaimException || t instanceof ClaimInProgressException
					|| t instanceof StoredOffsetMovedException
					|| t instanceof DataAccessResourceFailureException || t instanceof TransientDataAccessResourceException
					|| t instanceof RecoverableDataAccessException || t instanceof CannotCreateTransactionException
					|| t instanceof SQLTransientConnectionException || t instanceof SQLRecoverableException
					|| isConnectionException(t)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * SQLState class 08, "connection exception": the connection was lost or could not be made. Seen untranslated
	 * when a {@code DataSourceTransactionManager} (which wraps it in a {@code TransactionSystemException}) fails
	 * to commit because the database went away: mariadb-java-client reports that as a
	 * {@code SQLNonTransientConnectionException}, non-transient for the connection but not for the record.
	 */
	private static boolean isConnectionException(Throwable failure) {
		return failure instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08");
	}

}
