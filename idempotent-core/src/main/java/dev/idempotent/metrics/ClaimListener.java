package dev.idempotent.metrics;

import java.time.Duration;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.key.InvalidIdempotencyKeyException;

/**
 * Observes claims, e.g. to count them. Every method has a no-op default, so an implementation overrides only
 * what it needs. Methods are called on the consumer thread, inside the claim's transaction for
 * {@link #onClaimed} and {@link #onHit}: they must be fast and must not throw.
 * <p>Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
public interface ClaimListener {

	/** A listener that does nothing. */
	ClaimListener NO_OP = new ClaimListener() {
	};

	/**
	 * A key was claimed: the work is about to run.
	 * @param request the claim request
	 * @param reclaimed {@code true} if a FAILED row was taken over
	 * @param latency how long the claim took, from the INSERT to its result
	 */
	default void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
	}

	/**
	 * An idempotent hit: the work is skipped.
	 * @param request the claim request
	 * @param hit what the claim found
	 * @param latency how long the claim took
	 */
	default void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
	}

	/**
	 * An idempotent hit whose payload fingerprint differs from the one stored with the key's first claim (see
	 * {@link ClaimRequest#conflictsWith}). Called after {@link #onHit} for the same hit; the work is still skipped.
	 * @param request the claim request, with its fingerprint
	 * @param hit what the claim found, with the stored fingerprint
	 * @since 0.1.0
	 */
	default void onConflict(ClaimRequest request, ClaimResult.Hit hit) {
	}

	/**
	 * A delivery was rejected before any claim because its key is bad input.
	 * @param scope the scope the key would have been claimed in
	 * @param error why the key was rejected
	 */
	default void onRejected(String scope, InvalidIdempotencyKeyException error) {
	}

}
