package dev.idempotent.fastpath;

import dev.idempotent.claim.ClaimRequest;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Keeps a claim out of the fast path, for claims whose later hits need the database: a component that stores
 * something with the claim that a hit must read back (outputs to re-send) calls {@link #exclude} in the claim's
 * transaction, and the key is then not remembered when that transaction commits, so every hit on it reaches the
 * database claim and reads what it needs. Payload fingerprints need no exclusion: the fast path stores the
 * fingerprint with the key and a hit compares it as the database would.
 *
 * @since 0.1.0
 */
public final class DatabaseOnlyKeys {

	private DatabaseOnlyKeys() {
	}

	/**
	 * Keep a claim of the current transaction out of the fast path. Does nothing when no claim of the current
	 * transaction would be remembered (no fast path, or no transaction synchronization).
	 * @param request the claim's request (its scope and key count), never {@code null}
	 */
	public static void exclude(ClaimRequest request) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof RememberAfterCommit remember) {
				remember.exclude(request.scope(), request.key());
			}
		}
	}

}
