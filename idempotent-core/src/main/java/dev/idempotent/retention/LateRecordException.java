package dev.idempotent.retention;

import java.time.Instant;

/**
 * Thrown, with the {@link LateRecordPolicy#DEAD_LETTER} policy, for a record whose timestamp is older than the
 * retention period: its key's row may already have been removed, so whether it was processed before cannot be
 * told. Never worth retrying (the record only gets older): error handlers should send the record to the
 * dead-letter topic at once, where it can be inspected and replayed deliberately. The message names the scope,
 * the key as rendered for logs, the record's time and the window's start.
 *
 * @since 0.1.0
 */
public class LateRecordException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final Instant recordTime;

	private final Instant cutoff;

	/**
	 * Create an exception.
	 * @param message the specific explanation
	 * @param recordTime the record's timestamp
	 * @param cutoff the start of the retention window when the record was delivered
	 */
	public LateRecordException(String message, Instant recordTime, Instant cutoff) {
		super(message);
		this.recordTime = recordTime;
		this.cutoff = cutoff;
	}

	/**
	 * Return the record's timestamp.
	 * @return the time, never {@code null}
	 */
	public Instant getRecordTime() {
		return this.recordTime;
	}

	/**
	 * Return the start of the retention window when the record was delivered.
	 * @return now minus the retention period, never {@code null}
	 */
	public Instant getCutoff() {
		return this.cutoff;
	}

}
