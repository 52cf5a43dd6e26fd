package dev.idempotent.fastpath;

import java.time.Instant;
import java.util.Objects;

import dev.idempotent.claim.ClaimRequest;

/**
 * A claim the database committed as SUCCEEDED, to be remembered by the fast path.
 *
 * @param request the claim's request (scope, key, delivery source and payload fingerprint), never {@code null}
 * @param processedAt when it was processed (the first claim's time when known, else the commit's), never
 * {@code null}
 * @since 0.1.0
 */
public record RememberedClaim(ClaimRequest request, Instant processedAt) {

	/**
	 * Create a remembered claim.
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public RememberedClaim {
		Objects.requireNonNull(request, "request must not be null");
		Objects.requireNonNull(processedAt, "processedAt must not be null");
	}

}
