package dev.idempotent.jdbc;

import java.time.Instant;

import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import org.jspecify.annotations.Nullable;

/**
 * One row of the idempotency table, as read by {@link ClaimInspector}. The key is as stored: mask it (see
 * {@link dev.idempotent.key.KeyMasker}) before logging or showing it.
 *
 * @param scope the scope, never {@code null}
 * @param key the idempotency key, as stored, never {@code null}
 * @param status the status, never {@code null}
 * @param attempts how often the key was claimed or given up on, 1 or more
 * @param source where the last claim's record came from, {@code null} for rows written without one (non-Kafka
 * callers, FAILED rows inserted by the recoverer)
 * @param createdAt when the row was inserted (UTC instant), never {@code null}
 * @param updatedAt when the row was last written (UTC instant), never {@code null}
 * @param leaseUntil when a LEASED claim's lease ends (UTC instant), {@code null} outside LEASED mode
 * @param lastError the last error of a FAILED row, possibly containing the key; {@code null} when there is none
 * @since 0.1.0
 */
public record ClaimRow(String scope, String key, ClaimStatus status, int attempts, @Nullable DeliverySource source,
		Instant createdAt, Instant updatedAt, @Nullable Instant leaseUntil, @Nullable String lastError) {

}
