package dev.idempotent.output;

/**
 * Thrown when an output of a claim cannot be stored or delivered, and trying again cannot help: larger than
 * {@code idempotent.outputs.max-bytes}, more of them than {@code idempotent.outputs.max-count}, or refused by the
 * broker for good (a record too large for it). Not retryable: the record goes to the dead-letter topic with this
 * message as the reason. Thrown while the method runs, it rolls the claim back; thrown after the claim committed (an
 * acknowledgment that failed for good), the claim stays SUCCEEDED.
 *
 * @since 0.1.0
 */
public class OutputRejectedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create an exception.
	 * @param message why the output was rejected
	 */
	public OutputRejectedException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a cause.
	 * @param message why the output was rejected
	 * @param cause the producer's failure
	 */
	public OutputRejectedException(String message, Throwable cause) {
		super(message, cause);
	}

}
