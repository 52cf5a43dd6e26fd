package dev.idempotent.fastpath;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Holds the claims of one transaction that the fast path should learn, and passes them on only once the
 * transaction committed ({@link #afterCommit}); a rollback drops them. Used by the thread running the
 * transaction only. Not thread-safe.
 */
final class RememberAfterCommit implements TransactionSynchronization {

	private final List<RememberedClaim> claims = new ArrayList<>();

	private final Set<List<String>> excluded = new HashSet<>();

	/** The (scope, key) of the claims that were hits on SUCCEEDED rows, not new claims. */
	private final Set<List<String>> hits = new HashSet<>();

	private final Object owner;

	private final BiConsumer<List<RememberedClaim>, Set<List<String>>> remember;

	/**
	 * @param owner the fast path whose claims these are (one transaction may hold claims of several)
	 * @param remember passes the committed claims on, with the (scope, key) of those that were hits
	 */
	RememberAfterCommit(Object owner, BiConsumer<List<RememberedClaim>, Set<List<String>>> remember) {
		this.owner = owner;
		this.remember = remember;
	}

	boolean ownedBy(Object candidate) {
		return this.owner == candidate;
	}

	/**
	 * Hold a claim until the commit.
	 * @param hit whether the transaction found the key SUCCEEDED (a hit) rather than claimed it
	 */
	void add(RememberedClaim claim, boolean hit) {
		this.claims.add(claim);
		if (hit) {
			this.hits.add(List.of(claim.request().scope(), claim.request().key()));
		}
	}

	void exclude(String scope, String key) {
		this.excluded.add(List.of(scope, key));
	}

	@Override
	public void afterCommit() {
		List<RememberedClaim> committed = this.claims.stream()
			.filter((claim) -> !this.excluded.contains(List.of(claim.request().scope(), claim.request().key())))
			.toList();
		if (!committed.isEmpty()) {
			this.remember.accept(committed, this.hits);
		}
	}

}
