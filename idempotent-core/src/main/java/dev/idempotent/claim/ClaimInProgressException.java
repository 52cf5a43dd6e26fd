package dev.idempotent.claim;

import java.time.Instant;

import dev.idempotent.key.KeyMasker;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.TransientDataAccessException;

/**
 * Another consumer holds a live lease on the key ({@link ClaimMode#LEASED}): its work is in progress. This is
 * neither a hit nor a failure of the record: retry later, and take the key over if the lease expires. Error
 * handlers that treat {@link TransientDataAccessException} as retry-until-it-passes never dead-letter it.
 *
 * @since 0.1.0
 */
public class ClaimInProgressException extends TransientDataAccessException {

	private static final long serialVersionUID = 1L;

	private final @Nullable Instant leaseUntil;

	/**
	 * Create an exception.
	 * @param request the request that found the lease held
	 * @param leaseUntil when the lease expires, or {@code null} if unknown
	 */
	public ClaimInProgressException(ClaimRequest request, @Nullable Instant leaseUntil) {
		super("Key " + KeyMasker.MASKED.mask(request.key()) + " in scope " + request.scope() + " is being processed by another consumer"
				+ ((leaseUntil != null) ? " (lease until " + leaseUntil + ")" : "") + "; retrying later");
		this.leaseUntil = leaseUntil;
	}

	/**
	 * Return when the other consumer's lease expires.
	 * @return the expiry (UTC), or {@code null} if unknown
	 */
	public @Nullable Instant getLeaseUntil() {
		return this.leaseUntil;
	}

}
