package dev.idempotent.claim;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A request to claim idempotency key {@code key} in {@code scope}.
 *
 * @param scope the scope, by default the consumer group id; never {@code null}
 * @param key the validated idempotency key (see {@link dev.idempotent.key.KeyValidator}); never {@code null}
 * @param source where the delivery came from, or {@code null} for non-Kafka callers
 * @since 0.1.0
 */
public record ClaimRequest(String scope, String key, @Nullable DeliverySource source) {

	/**
	 * Create a request.
	 * @throws NullPointerException if {@code scope} or {@code key} is {@code null}
	 */
	public ClaimRequest {
		Objects.requireNonNull(scope, "scope must not be null");
		Objects.requireNonNull(key, "key must not be null");
	}

}
