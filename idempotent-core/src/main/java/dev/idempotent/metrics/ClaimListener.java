package dev.idempotent.metrics;

import java.time.Duration;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.HitOrigin;
import dev.idempotent.key.InvalidIdempotencyKeyException;

/**
 * Observes claims, e.g. to count them. Every method has a no-op default, so an implementation overrides only
 * what it needs. Methods are called on the consumer thread; they must be fast and must not throw.
 * <p>When each callback fires: once per record, when the outcome is final.
 * <ul>
 * <li>{@link #onClaimed}, {@link #onHit} and {@link #onConflict} in TRANSACTIONAL mode: after the claim's
 * transaction committed (from a {@code TransactionSynchronization}'s {@code afterCompletion} with
 * {@code STATUS_COMMITTED}, whether the executor began the transaction or joined one; the work has run by then). A
 * transaction that rolls back reports nothing: a record that fails once and then succeeds is claimed once, with the
 * attempt that committed; a batch whose transaction fails and is processed again record by record reports each
 * record once, from the record-by-record transactions (hits of the rolled-back batch included). The latency passed
 * is still the claim's own, measured at the claim. In a joined transaction without transaction synchronization,
 * the outcome cannot be known, and callbacks fire at the end of the claim.</li>
 * <li>In LEASED mode: {@link #onClaimed} when the lease's own transaction committed, before the work runs (from
 * then on the side effect may happen and no rollback undoes it, so each committed lease counts; a retry after a
 * failure takes the released lease over and counts as reclaimed); {@link #onHit} after the transaction that read
 * the SUCCEEDED row.</li>
 * <li>{@link #onRejected}: at once, before any claim or transaction.</li>
 * </ul>
 * <p>Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
public interface ClaimListener {

	/** A listener that does nothing. */
	ClaimListener NO_OP = new ClaimListener() {
	};

	/**
	 * A key was claimed and its transaction committed (TRANSACTIONAL mode: the work ran in it), or its lease
	 * committed (LEASED mode: the work is about to run).
	 * @param request the claim request
	 * @param reclaimed {@code true} if a FAILED row was taken over
	 * @param latency how long the claim took, from the INSERT to its result
	 */
	default void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
	}

	/**
	 * An idempotent hit, once its transaction committed: the work was skipped. {@link HitOrigin#of} tells a
	 * redelivery of the same record from a re-send of its key.
	 * @param request the claim request
	 * @param hit what the claim found
	 * @param latency how long the claim took
	 */
	default void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
	}

	/**
	 * An idempotent hit answered by the fast path ({@link dev.idempotent.fastpath.FastPath}) without the database:
	 * the work was skipped and no transaction was begun. Reported when the fast path answered, or, for a batch
	 * whose other records were claimed in a transaction, once that transaction committed. The default reports it
	 * as {@link #onHit}, so a listener that counts hits counts these too.
	 * @param request the claim request
	 * @param hit what the fast path stored with the key
	 * @param latency how long the fast path's lookup took
	 * @since 0.1.0
	 */
	default void onFastPathHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		onHit(request, hit, latency);
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
