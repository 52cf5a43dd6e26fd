package dev.idempotent.output;

/**
 * Thrown after a claim committed when a record its listener sent was not acknowledged by the broker in time, or
 * failed with an error that may pass. The record's offset is not committed: the error handler retries it, the retry
 * is an idempotent hit, and the hit sends the stored outputs again. After the retries the record goes to the
 * dead-letter topic; its claim stays SUCCEEDED (its effect happened).
 *
 * @since 0.1.0
 */
public class OutputDeliveryException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception.
	 * @param message what was not delivered
	 * @param cause the producer's failure
	 */
	public OutputDeliveryException(String message, Throwable cause) {
		super(message, cause);
	}

}
