package dev.idempotent.claim;

import java.time.Instant;

/**
 * What a lease claim found.
 *
 * @since 0.1.0
 */
public sealed interface LeaseResult permits LeaseResult.Acquired, LeaseResult.Done, LeaseResult.Held {

	/**
	 * The caller holds the lease and must run the work.
	 *
	 * @param reclaimed {@code true} if a FAILED row or an expired lease was taken over
	 * @param attempt the attempt number the lease was granted under; it fences completion and release, so a
	 * consumer whose lease was taken over cannot complete another consumer's attempt
	 * @param leaseUntil when the lease expires (UTC)
	 */
	record Acquired(boolean reclaimed, int attempt, Instant leaseUntil) implements LeaseResult {
	}

	/**
	 * The key was processed before: an idempotent hit.
	 *
	 * @param hit what the claim found
	 */
	record Done(ClaimResult.Hit hit) implements LeaseResult {
	}

	/**
	 * Another consumer holds a live lease: the work is in progress elsewhere. Not a hit; retry later.
	 *
	 * @param leaseUntil when that lease expires (UTC), or {@code null} if it could not be read
	 */
	record Held(Instant leaseUntil) implements LeaseResult {
	}

}
