package dev.idempotent.claim;

import org.springframework.dao.NonTransientDataAccessException;

/**
 * The database rolled back the transaction of a claim on every run without an error reaching the application (see
 * {@link ClaimCheckpoint}): not a passing conflict but something the work or the database does each time (a
 * {@code ROLLBACK} inside a stored procedure or on the connection, a statement that commits implicitly, a deadlock
 * the work catches that recurs). Not transient: the record fails as any failing record does, and is dead-lettered
 * after its retries instead of stalling its partition.
 *
 * @since 0.1.0
 */
public class ClaimTransactionLostException extends NonTransientDataAccessException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create the exception.
	 * @param message what was lost and what to look for
	 * @param cause the last run's {@link TransientClaimException}
	 */
	public ClaimTransactionLostException(String message, Throwable cause) {
		super(message, cause);
	}

}
