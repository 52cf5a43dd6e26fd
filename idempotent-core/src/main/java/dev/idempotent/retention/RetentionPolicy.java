package dev.idempotent.retention;

import java.time.Duration;
import java.time.Instant;

/**
 * Which rows of the idempotency table retention removes, and how: SUCCEEDED rows (and FAILED ones if
 * {@code includeFailed}) whose {@code updated_at} is older than now minus {@code period}, in transactions of at
 * most {@code batchSize} rows. PROCESSING rows (leases in progress) are never removed. Immutable and thread-safe.
 *
 * @param period how long a row is kept after its last update; positive. It is the deduplication window: a record
 * delivered again after its row was removed is processed again
 * @param mode archive or delete
 * @param includeFailed whether FAILED rows (dead-lettered records, waiting for a replay) are removed too
 * @param batchSize rows per transaction, at least 1
 * @since 0.1.0
 */
public record RetentionPolicy(Duration period, RetentionMode mode, boolean includeFailed, int batchSize) {

	/** The default number of rows per transaction. */
	public static final int DEFAULT_BATCH_SIZE = 500;

	/**
	 * Create a policy.
	 * @throws IllegalArgumentException if the period is missing, zero or negative, or the batch size below 1
	 */
	public RetentionPolicy {
		if (period == null || period.isZero() || period.isNegative()) {
			throw new IllegalArgumentException("The retention period must be a positive duration (property "
					+ "idempotent.retention.period, e.g. '30d'); it is the deduplication window and must cover the longest "
					+ "possible replay (topic retention, dead-letter replays); got " + period);
		}
		if (mode == null) {
			throw new IllegalArgumentException("The retention mode must be ARCHIVE or DELETE");
		}
		if (batchSize < 1) {
			throw new IllegalArgumentException("The retention batch size must be at least 1; got " + batchSize);
		}
	}

	/**
	 * Return the oldest time still inside the window.
	 * @param now the current instant
	 * @return {@code now - period}; rows last updated before it may go
	 */
	public Instant cutoff(Instant now) {
		return now.minus(this.period);
	}

}
