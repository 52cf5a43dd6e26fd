package dev.idempotent.kafka;

import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * Tells failures that go away by themselves (the database is restarting or unreachable, a lock could not be
 * had, a lease is held by another consumer) from failures of the record. The first kind is retried until it
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
			if (t instanceof TransientDataAccessException || t instanceof DataAccessResourceFailureException
					|| t instanceof RecoverableDataAccessException || t instanceof CannotCreateTransactionException
					|| t instanceof SQLTransientException || t instanceof SQLRecoverableException) {
				return true;
			}
		}
		return false;
	}

}
