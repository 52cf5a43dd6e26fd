package dev.idempotent.claim;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * What a claim found: the key is now ours ({@link Claimed}), or it was processed before ({@link Hit}).
 *
 * @since 0.1.0
 */
public sealed interface ClaimResult permits ClaimResult.Claimed, ClaimResult.Hit {

	/**
	 * The key is claimed by the current transaction: the work must run.
	 *
	 * @param reclaimed {@code true} when an earlier FAILED row was taken over, {@code false} for a new row
	 */
	record Claimed(boolean reclaimed) implements ClaimResult {
	}

	/**
	 * An idempotent hit: the key was processed before (or is being processed under a lease); the work must
	 * not run.
	 *
	 * @param status the status of the existing row as far as it could be read, or {@code null} if the row was
	 * not visible to the current transaction's snapshot (the INSERT's duplicate signal decides, not this read)
	 * @param firstProcessedAt when the existing row was created, or {@code null} if it could not be read
	 * @param fingerprint the payload fingerprint stored with the existing claim, or {@code null} if it has none or
	 * fingerprints are off
	 * @param source the delivery the existing row was claimed for (its source topic, partition and offset), or
	 * {@code null} if the row has none (a non-Kafka claim) or it could not be read; compared with the current
	 * delivery's by {@link HitOrigin#of} to tell a redelivery from a re-send
	 */
	record Hit(@Nullable ClaimStatus status, @Nullable Instant firstProcessedAt, @Nullable String fingerprint,
			@Nullable DeliverySource source) implements ClaimResult {

		/**
		 * Create a hit without a fingerprint and without a stored source.
		 * @param status the existing row's status, or {@code null} if unknown
		 * @param firstProcessedAt when the existing row was created, or {@code null} if unknown
		 */
		public Hit(@Nullable ClaimStatus status, @Nullable Instant firstProcessedAt) {
			this(status, firstProcessedAt, null, null);
		}

		/**
		 * Create a hit without a stored source.
		 * @param status the existing row's status, or {@code null} if unknown
		 * @param firstProcessedAt when the existing row was created, or {@code null} if unknown
		 * @param fingerprint the stored payload fingerprint, or {@code null}
		 */
		public Hit(@Nullable ClaimStatus status, @Nullable Instant firstProcessedAt, @Nullable String fingerprint) {
			this(status, firstProcessedAt, fingerprint, null);
		}

	}

}
