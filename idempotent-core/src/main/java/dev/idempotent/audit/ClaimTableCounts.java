package dev.idempotent.audit;

import java.time.Instant;
import java.util.List;

/**
 * What one run of the {@link ClaimTableCheck} counted in the idempotency table.
 *
 * @param failed rows in status FAILED (dead-lettered deliveries, or failed LEASED side effects), 0 or more
 * @param stuck rows in status PROCESSING whose lease expired (a LEASED consumer died or outlived its lease and the
 * record was not delivered again), 0 or more
 * @param stuckSampleKeys up to a few keys of stuck rows, as stored (mask them before logging), never {@code null};
 * empty when {@code stuck} is 0
 * @param checkedAt when the check ran, never {@code null}
 * @since 0.1.0
 */
public record ClaimTableCounts(long failed, long stuck, List<String> stuckSampleKeys, Instant checkedAt) {

	/**
	 * Create counts; the sample keys are copied.
	 * @throws NullPointerException if {@code stuckSampleKeys} is {@code null} or holds {@code null}
	 */
	public ClaimTableCounts {
		stuckSampleKeys = List.copyOf(stuckSampleKeys);
	}

}
