package dev.idempotent.claim;

import java.util.Objects;

import dev.idempotent.key.KeyMasker;
import org.jspecify.annotations.Nullable;

/**
 * A request to claim idempotency key {@code key} in {@code scope}.
 *
 * @param scope the scope, by default the consumer group id; never {@code null}
 * @param key the validated idempotency key (see {@link dev.idempotent.key.KeyValidator}); never {@code null}
 * @param source where the delivery came from, or {@code null} for non-Kafka callers
 * @param fingerprint the digest of the delivery's payload (see {@link PayloadFingerprint}), stored with the claim
 * and compared on a hit; {@code null} when payload fingerprints are off or the payload has none. It never takes
 * part in deduplication
 * @since 0.1.0
 */
public record ClaimRequest(String scope, String key, @Nullable DeliverySource source, @Nullable String fingerprint) {

	/**
	 * Create a request.
	 * @throws NullPointerException if {@code scope} or {@code key} is {@code null}
	 */
	public ClaimRequest {
		Objects.requireNonNull(scope, "scope must not be null");
		Objects.requireNonNull(key, "key must not be null");
	}

	/**
	 * Create a request without a payload fingerprint.
	 * @param scope the scope, never {@code null}
	 * @param key the validated key, never {@code null}
	 * @param source where the delivery came from, or {@code null}
	 * @throws NullPointerException if {@code scope} or {@code key} is {@code null}
	 */
	public ClaimRequest(String scope, String key, @Nullable DeliverySource source) {
		this(scope, key, source, null);
	}

	/**
	 * Describe the request for logs and exception messages, with the key masked ({@link KeyMasker#MASKED}): keys
	 * can be personal data, and exception messages end up in logs and dead-letter headers.
	 * @return the description, never {@code null}
	 */
	@Override
	public String toString() {
		return "ClaimRequest[scope=" + this.scope + ", key=" + KeyMasker.MASKED.mask(this.key) + ", source="
				+ this.source + ", fingerprint=" + ((this.fingerprint != null) ? this.fingerprint.substring(0,
						Math.min(12, this.fingerprint.length())) + "..." : "none") + "]";
	}

	/**
	 * Tell whether a hit on this request found a row first claimed with different content: both this request and
	 * the row carry a fingerprint and the two differ (the same key for a different payload: a producer bug or a key
	 * collision).
	 * @param hit the hit, never {@code null}
	 * @return whether the hit is a conflict
	 */
	public boolean conflictsWith(ClaimResult.Hit hit) {
		return this.fingerprint != null && hit.fingerprint() != null && !this.fingerprint.equals(hit.fingerprint());
	}

}
