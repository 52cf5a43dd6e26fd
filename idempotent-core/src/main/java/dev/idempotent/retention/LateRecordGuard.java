package dev.idempotent.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.key.KeyMasker;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a delivery against the retention window before it is claimed: a record whose timestamp is older than
 * the retention period may have had its key's row removed already, so a duplicate of it would be processed
 * again. With {@link LateRecordPolicy#PROCESS} it is logged at WARN (key masked as configured), counted and
 * claimed as usual; with {@link LateRecordPolicy#DEAD_LETTER} it is counted and refused with a
 * {@link LateRecordException}. {@link #NONE}, for retention switched off, accepts everything. Times compare as
 * instants (the record's timestamp and the clock's now), so no time zone is involved. Thread-safe.
 *
 * @since 0.1.0
 */
public final class LateRecordGuard {

	/** The guard when retention is off: rows are kept forever, so no record is late. */
	public static final LateRecordGuard NONE = new LateRecordGuard(null, LateRecordPolicy.PROCESS, Clock.systemUTC(),
			RetentionListener.NO_OP, KeyMasker.MASKED);

	private static final Logger logger = LoggerFactory.getLogger(LateRecordGuard.class);

	private final @Nullable Duration period;

	private final LateRecordPolicy policy;

	private final Clock clock;

	private final RetentionListener listener;

	private final KeyMasker masker;

	/**
	 * Create a guard.
	 * @param period the retention period, positive; {@code null} accepts every record
	 * @param policy what to do with a late record
	 * @param clock the library's clock
	 * @param listener counts late records
	 * @param masker renders keys in log lines and messages
	 */
	public LateRecordGuard(@Nullable Duration period, LateRecordPolicy policy, Clock clock, RetentionListener listener,
			KeyMasker masker) {
		this.period = period;
		this.policy = policy;
		this.clock = clock;
		this.listener = listener;
		this.masker = masker;
	}

	/**
	 * Check a delivery about to be claimed.
	 * @param request the claim it would make
	 * @param where where the record comes from, for the log line (e.g. {@code topic-partition@offset})
	 * @param recordTime the record's timestamp, or {@code null} if it has none (then it is never late)
	 * @throws LateRecordException with {@link LateRecordPolicy#DEAD_LETTER} when the record is late
	 */
	public void check(ClaimRequest request, String where, @Nullable Instant recordTime) {
		if (this.period == null || recordTime == null) {
			return;
		}
		Instant cutoff = this.clock.instant().minus(this.period);
		if (!recordTime.isBefore(cutoff)) {
			return;
		}
		this.listener.onLateRecord(this.policy);
		String what = "Record " + where + " (scope=" + request.scope() + " key=" + this.masker.mask(request.key())
				+ ") has timestamp " + recordTime + ", older than the retention period " + this.period
				+ " (window starts at " + cutoff + "): its key's row may have been removed, so a duplicate would be"
				+ " processed again";
		if (this.policy == LateRecordPolicy.DEAD_LETTER) {
			throw new LateRecordException(what + "; dead-lettered (idempotent.retention.late-records=dead-letter)",
					recordTime, cutoff);
		}
		logger.warn("{}; processing it (idempotent.retention.late-records=process)", what);
	}

	/**
	 * Return the policy applied to late records.
	 * @return the policy, never {@code null}
	 */
	public LateRecordPolicy policy() {
		return this.policy;
	}

}
