package dev.idempotent.claim;

import org.springframework.dao.TransientDataAccessException;

/**
 * A claim lost a race in a way that resolves by itself: a deadlock or a lock-wait timeout between concurrent
 * claims of the same key (MySQL/MariaDB 1213 and 1205, SQLState 40001, PostgreSQL 40P01). The transaction
 * that saw it is rolled back; retrying it is safe. It is never an idempotent hit and never a reason to
 * dead-letter a record.
 *
 * @since 0.1.0
 */
public class TransientClaimException extends TransientDataAccessException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception.
	 * @param message what happened, including the scope and key
	 * @param cause the database error
	 */
	public TransientClaimException(String message, Throwable cause) {
		super(message, cause);
	}

}
