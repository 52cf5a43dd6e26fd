package dev.idempotent.claim;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Stores consumed offsets in claim transactions: called inside each transaction that settles deliveries (a claim, a
 * batch's claims, a hit, a FAILED row), right before its commit, with where those deliveries came from. Storing the
 * offsets with the claims makes the database the truth about how far a consumer group got: a database that loses the
 * transaction loses both, so the deliveries are read again (docs/clusters.md, "Offsets in the claim's transaction").
 * <p>Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ClaimOffsets {

	/** Stores nothing: the offsets stay with Kafka only. */
	ClaimOffsets NONE = (sources) -> null;

	/**
	 * Store, in the transaction active on the calling thread, the next offset of each partition the deliveries came
	 * from.
	 * @param sources where the transaction's deliveries came from, in delivery order; {@code null} entries (deliveries
	 * that did not come from Kafka) are skipped
	 * @return what to run once the transaction committed, or {@code null} for nothing
	 * @throws RuntimeException when the stored offsets are not what they must be for this transaction to commit (the
	 * transaction then rolls back)
	 */
	@Nullable Runnable store(List<@Nullable DeliverySource> sources);

	/**
	 * Check, in the transaction active on the calling thread, that the stored offsets of the partitions the deliveries
	 * came from are still where the caller's consumer left them, without moving them: for work that runs before the
	 * transaction that settles it (a lease taken before a side effect), so that it does not run past deliveries the
	 * database lost. Does nothing by default.
	 * @param sources where the deliveries came from; {@code null} entries are skipped
	 * @throws RuntimeException when the stored offsets moved (the transaction then rolls back)
	 */
	default void check(List<@Nullable DeliverySource> sources) {
	}

}
