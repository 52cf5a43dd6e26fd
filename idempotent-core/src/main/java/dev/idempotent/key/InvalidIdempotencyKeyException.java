package dev.idempotent.key;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a record's idempotency key is bad input: null, blank, too long, malformed, of an unsupported
 * type, or when the key expression fails. This is never worth retrying: the same record produces the same
 * bad key every time, so error handlers should send the record to the dead-letter topic at once.
 *
 * @since 0.1.0
 */
public class InvalidIdempotencyKeyException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final InvalidKeyReason reason;

	/**
	 * Create an exception.
	 * @param reason why the key was rejected, never {@code null}
	 * @param message a specific, human readable explanation
	 * @param cause the underlying failure, e.g. a SpEL evaluation error, or {@code null}
	 */
	public InvalidIdempotencyKeyException(InvalidKeyReason reason, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.reason = reason;
	}

	/**
	 * Create an exception without a cause.
	 * @param reason why the key was rejected, never {@code null}
	 * @param message a specific, human readable explanation
	 */
	public InvalidIdempotencyKeyException(InvalidKeyReason reason, String message) {
		this(reason, message, null);
	}

	/**
	 * Return why the key was rejected.
	 * @return the reason, never {@code null}
	 */
	public InvalidKeyReason getReason() {
		return this.reason;
	}

}
