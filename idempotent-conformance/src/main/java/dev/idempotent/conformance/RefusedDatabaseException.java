package dev.idempotent.conformance;

/**
 * Thrown when running the kit could damage the database: tables it would use exist and it did not create them.
 * Nothing has been written when it is thrown.
 */
public class RefusedDatabaseException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create the exception.
	 * @param message what was found and what to do, never {@code null}
	 */
	public RefusedDatabaseException(String message) {
		super(message);
	}

}
