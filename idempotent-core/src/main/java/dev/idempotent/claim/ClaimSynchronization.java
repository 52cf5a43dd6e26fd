package dev.idempotent.claim;

import java.util.ArrayList;
import java.util.List;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The claim executor's hook on one claim transaction (one attempt of it):
 * <ul>
 * <li>holds the claims' outcomes (counts, hit log lines) until the transaction's outcome is known, and reports them
 * once it committed ({@link #afterCompletion} with {@link #STATUS_COMMITTED}); a rollback drops them, since the retry
 * reports its own;</li>
 * <li>tells the {@link InnerTransactionWarning} when Spring suspends it, which happens when a transaction begins
 * inside the claim's and commits on its own;</li>
 * <li>holds the {@link ClaimCheckpoint} of the claims that made work run, checked right before the commit.</li>
 * </ul>
 * Used by one thread, the one running the transaction. Not thread-safe.
 */
final class ClaimSynchronization implements TransactionSynchronization {

	private final List<Runnable> outcomes = new ArrayList<>();

	private final String scope;

	private final InnerTransactionWarning warning;

	private ClaimCheckpoint checkpoint = ClaimCheckpoint.NONE;

	private boolean workRan;

	private boolean lost;

	private boolean registered;

	private boolean working;

	/**
	 * Create a hook.
	 * @param scope the scope of the transaction's claims, for the warning
	 * @param warning the warning to give when an inner transaction begins
	 */
	ClaimSynchronization(String scope, InnerTransactionWarning warning) {
		this.scope = scope;
		this.warning = warning;
	}

	/**
	 * Register with the transaction active on this thread, if it has synchronization on.
	 * @return whether it was registered: outcomes are then reported at commit, otherwise the caller reports them
	 */
	boolean register() {
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(this);
			this.registered = true;
		}
		return this.registered;
	}

	/**
	 * Hold an outcome until the transaction commits (or until {@link #reportNow}, if this hook is not registered).
	 * @param outcome what to report
	 */
	void onCommit(Runnable outcome) {
		this.outcomes.add(outcome);
	}

	/**
	 * Run the claims and the work, watching for a transaction begun inside them: only then is a suspension of this
	 * hook reported (after the work, the joined transaction's owner may begin others, which are no part of the claim).
	 * @param claimsAndWork the claims and the work
	 * @param <R> their result type
	 * @return their result
	 * @throws Throwable what they threw
	 */
	<R> R watching(TransactionRunner.Work<R> claimsAndWork) throws Throwable {
		this.working = true;
		try {
			return claimsAndWork.run();
		}
		finally {
			this.working = false;
		}
	}

	/**
	 * Keep the checkpoint the store set after claims that made work run.
	 * @param checkpoint the checkpoint
	 */
	void checkpoint(ClaimCheckpoint checkpoint) {
		this.checkpoint = checkpoint;
		this.workRan = true;
	}

	/**
	 * Record that the check before the commit found the transaction rolled back.
	 * @param lost whether it did
	 */
	void lost(boolean lost) {
		this.lost = lost;
	}

	/**
	 * Whether the check before the commit found the transaction rolled back without an error reaching the work.
	 * @return whether it did
	 */
	boolean lost() {
		return this.lost;
	}

	/**
	 * Whether claims of this transaction made work run (a checkpoint was set before it).
	 * @return whether the work ran, or began to
	 */
	boolean workRan() {
		return this.workRan;
	}

	/**
	 * Check, right before the commit, that the transaction still holds the claims (see {@link ClaimCheckpoint}).
	 * @throws TransientClaimException if the database rolled it back
	 */
	void requireClaimsHeld() {
		this.checkpoint.requireHeld();
	}

	/** Report the held outcomes now, once: for a transaction that committed without this hook registered. */
	void reportNow() {
		List<Runnable> held = List.copyOf(this.outcomes);
		this.outcomes.clear();
		held.forEach(Runnable::run);
	}

	/**
	 * Whether this hook reports at the transaction's commit.
	 * @return whether it was registered
	 */
	boolean registered() {
		return this.registered;
	}

	@Override
	public void suspend() {
		if (this.working) {
			this.warning.innerTransactionBegins(this.scope);
		}
	}

	@Override
	public void afterCompletion(int status) {
		if (status == STATUS_COMMITTED) {
			reportNow();
		}
		else {
			this.outcomes.clear();
		}
	}

}
