package dev.idempotent.fastpath;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Holds the claims of one transaction that the fast path should learn, and passes them on only once the
 * transaction committed ({@link #afterCommit}); a rollback drops them. Used by the thread running the
 * transaction only. Not thread-safe.
 */
final class RememberAfterCommit implements TransactionSynchronization {

	private final List<RememberedClaim> claims = new ArrayList<>();

	private final Set<List<String>> excluded = new HashSet<>();

	private final Object owner;

	private final Consumer<List<RememberedClaim>> remember;

	/**
	 * @param owner the fast path whose claims these are (one transaction may hold claims of several)
	 * @param remember passes the committed claims on
	 */
	RememberAfterCommit(Object owner, Consumer<List<RememberedClaim>> remember) {
		this.owner = owner;
		this.remember = remember;
	}

	boolean ownedBy(Object candidate) {
		return this.owner == candidate;
	}

	void add(RememberedClaim claim) {
		this.claims.add(claim);
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
			this.remember.accept(committed);
		}
	}


}
