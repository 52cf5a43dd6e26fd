package dev.idempotent.claim;

import java.time.Duration;

/**
 * Storage SPI for {@link ClaimMode#LEASED} claims. Each method is atomic and runs in the caller's transaction,
 * which is a short one of its own: the lease must be visible to other consumers while the work runs.
 * Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
public interface LeasedClaimStore {

	/**
	 * Claim a key with a lease: a new key, a FAILED row, or a PROCESSING row whose lease expired is taken (the
	 * last by exactly one of several consumers); a SUCCEEDED row is a hit; a live lease is held elsewhere.
	 * @param request what to claim, never {@code null}
	 * @param lease how long the lease lasts, positive
	 * @return what the claim found
	 * @throws TransientClaimException on a deadlock or lock-wait timeout
	 * @throws org.springframework.dao.DataIntegrityViolationException if the claim violates a unique constraint other
	 * than the one on (scope, key): an error, never a lease held elsewhere
	 * @throws org.springframework.dao.DataAccessException on any other database failure
	 */
	LeaseResult claimLease(ClaimRequest request, Duration lease);

	/**
	 * Mark a leased key SUCCEEDED, if the lease of {@code attempt} is still the current one.
	 * @param request the claimed request
	 * @param attempt the attempt of the lease
	 * @return {@code false} if the lease had been taken over by another consumer meanwhile
	 */
	boolean completeLease(ClaimRequest request, int attempt);

	/**
	 * Give a lease up after the work failed: the row becomes FAILED with the error, so that a retry claims it at
	 * once instead of waiting for the lease to expire. Does nothing if the lease was taken over meanwhile.
	 * @param request the claimed request
	 * @param attempt the attempt of the lease
	 * @param lastError a description of the error, at most 1,000 characters
	 */
	void releaseLease(ClaimRequest request, int attempt, String lastError);

}
