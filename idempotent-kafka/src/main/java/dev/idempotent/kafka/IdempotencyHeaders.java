package dev.idempotent.kafka;

/**
 * Names of the Kafka headers this library reads and writes.
 *
 * @since 0.1.0
 */
public final class IdempotencyHeaders {

	/** The default header a producer sets to carry the idempotency key (UTF-8). */
	public static final String KEY = "idempotency-key";

	/** Added to a dead-lettered record whose key was rejected: the {@code InvalidKeyReason}, e.g. {@code BLANK}. */
	public static final String REJECTION_REASON = "idempotent-rejection-reason";

	/**
	 * The {@link #REJECTION_REASON} of a record dead-lettered because its timestamp is older than the retention
	 * period ({@code idempotent.retention.late-records=dead-letter}).
	 */
	public static final String LATE_RECORD = "LATE_RECORD";

	/**
	 * The {@link #REJECTION_REASON} of a record dead-lettered because it arrived as a {@code null} payload in a batch
	 * whose method does not accept one (see {@link NullPayloadException}).
	 */
	public static final String NULL_PAYLOAD = "NULL_PAYLOAD";

	/** Added to a dead-lettered record whose key was rejected: the specific message, UTF-8. */
	public static final String REJECTION_MESSAGE = "idempotent-rejection-message";

	/** Added to a dead-lettered record whose work failed: the scope it was claimed in, UTF-8. */
	public static final String DEAD_LETTER_SCOPE = "idempotent-scope";

	/** Added to a dead-lettered record whose work failed: its idempotency key, UTF-8. */
	public static final String DEAD_LETTER_KEY = "idempotent-key";

	private IdempotencyHeaders() {
	}

}
