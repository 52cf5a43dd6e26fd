package dev.idempotent.claim;

/**
 * How a claim relates to the work it guards (docs/semantics.md).
 *
 * @since 0.1.0
 */
public enum ClaimMode {

	/**
	 * The claim (inserted as SUCCEEDED) and the work's database writes commit in one transaction: the work's effect
	 * happens exactly once. For work whose effects are all in the business database.
	 */
	TRANSACTIONAL,

	/**
	 * The claim commits on its own with a lease; the work runs outside that transaction; SUCCEEDED is written
	 * after it returns. For side effects that cannot join the transaction (SMS, payment APIs): the work runs at
	 * least once per key, and more than once only when a consumer dies (or its lease expires) between starting
	 * the work and recording SUCCEEDED; pass the idempotency key to the remote system so it can deduplicate.
	 */
	LEASED

}
