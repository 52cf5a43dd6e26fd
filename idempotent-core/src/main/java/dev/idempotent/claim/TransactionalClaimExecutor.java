package dev.idempotent.claim;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.idempotent.fastpath.FastPathClaims;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.observation.ClaimObserver;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * Runs work under a claim, in one transaction (docs/semantics.md, "The transaction"; mode
 * {@link ClaimMode#TRANSACTIONAL}):
 * <ol>
 * <li>begin a transaction on the business database, or join the one already active on this thread;</li>
 * <li>claim the key with one INSERT;</li>
 * <li>claimed: set the store's {@link ClaimCheckpoint}, run the work, flush what the transaction holds back until its
 * commit (a JPA persistence context), check that the transaction still holds the claim (the database may have rolled it
 * back without an error reaching the work), commit (the claimed row is SUCCEEDED as of that commit); a failure of the
 * work rolls back the claim together with the work's own writes;</li>
 * <li>hit: skip the work, log one INFO line on {@value HitLog#LOGGER_NAME}, count it, end the transaction
 * cleanly; in shadow mode ({@link #setShadow}) log and count it the same way, then run the work as if claimed.</li>
 * </ol>
 * Outcomes are counted (and hits logged) once per record, when the transaction's outcome is known: after it
 * committed, through a {@link org.springframework.transaction.support.TransactionSynchronization} on it (whether
 * this executor began it or joined it); a rollback counts nothing, so a record that fails and is retried counts
 * once, with the attempt that committed (see {@link ClaimListener}).
 * <p>"Joined" means a transaction on the business database is active (the resource of a
 * {@link ResourceTransactionManager} is bound to the thread); another resource's transaction, such as a listener
 * container's {@code KafkaTransactionManager}'s, is not joined: the claim begins its own inside it. A transaction
 * begun <em>inside</em> the claim's (a {@code REQUIRES_NEW} method, another transaction manager's transaction)
 * commits on its own, outside the claim: it is logged at WARN, once per scope and place in the code.
 * <p>The transaction is driven through the {@link PlatformTransactionManager} directly: when the work fails and the
 * rollback fails too (the database went away), the work's failure is thrown with the rollback's as suppressed, and
 * nothing is logged above DEBUG.
 * <p>The method returns only after the transaction committed (unless it joined an outer transaction, which then
 * decides), so a caller that commits a Kafka offset after this method returns never commits it before the
 * database.
 * <p>Transient ({@link TransientClaimException}): a deadlock or lock-wait timeout of the claim; a conflict the database
 * resolved by rolling the transaction back ({@link ClaimStore#isConflict}: a deadlock victim, a cluster's
 * certification failure or brute-force abort), reported to the work or at COMMIT; a transaction the database rolled back
 * without the work seeing an error (the checkpoint, logged at WARN). The whole transaction is run again up to
 * {@code maxTransientRetries} times when this executor began it; a joined transaction belongs to its owner, who must roll
 * it back and retry, so the exception is passed on, and so it is once the work ran inside another resource's
 * transaction (a listener container's Kafka transaction, whose records the work may have sent: only its owner can undo
 * them).
 * <p>With a fast path ({@link #setFastPath}), a key it knows is a hit before any transaction begins: no
 * transaction is opened and the database is not touched (the hit is counted with
 * {@link ClaimListener#onFastPathHit} and logged at once). Keys it does not know, or when it fails, are claimed as
 * above; after the commit, the claimed keys (and hits on SUCCEEDED rows) are passed to it.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public class TransactionalClaimExecutor {

	/** Default number of times a transaction is retried after a transient claim failure. */
	public static final int DEFAULT_MAX_TRANSIENT_RETRIES = 5;

	private static final Logger logger = LoggerFactory.getLogger(TransactionalClaimExecutor.class);

	private final ClaimStore store;

	private final PlatformTransactionManager transactionManager;

	private final TransactionRunner transaction;

	private final InnerTransactionWarning innerTransactions = new InnerTransactionWarning();

	private final ClaimListener listener;

	private final int maxTransientRetries;

	private volatile HitLog hitLog = HitLog.MASKED;

	private volatile ConflictLog conflictLog = ConflictLog.MASKED;

	private volatile ClaimObserver observer = ClaimObserver.NO_OP;

	private volatile FastPathClaims fastPath = FastPathClaims.NONE;

	private volatile boolean shadow;

	private volatile ClaimOffsets offsets = ClaimOffsets.NONE;

	/**
	 * Create an executor.
	 * @param store the claim store, working on the same database as {@code transactionManager}
	 * @param transactionManager the business database's transaction manager
	 * @param listener observes claims; use {@link ClaimListener#NO_OP} for none
	 * @param maxTransientRetries how often to retry a transaction after a transient claim failure, 0 or more
	 * @throws IllegalArgumentException if {@code maxTransientRetries} is negative
	 */
	public TransactionalClaimExecutor(ClaimStore store, PlatformTransactionManager transactionManager,
			ClaimListener listener, int maxTransientRetries) {
		if (maxTransientRetries < 0) {
			throw new IllegalArgumentException("maxTransientRetries must not be negative");
		}
		this.store = store;
		this.transactionManager = transactionManager;
		this.transaction = new TransactionRunner(transactionManager,
				new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRED), store::isConflict);
		this.listener = listener;
		this.maxTransientRetries = maxTransientRetries;
	}

	/**
	 * Set the log of idempotent hits, for instance one that shows keys in clear. Call before the executor is used.
	 * @param hitLog the hit log, never {@code null}; {@link HitLog#MASKED} by default
	 */
	public void setHitLog(HitLog hitLog) {
		this.hitLog = hitLog;
	}

	/**
	 * Set the log of payload conflicts (hits whose payload fingerprint differs from the first claim's). Call before
	 * the executor is used.
	 * @param conflictLog the conflict log, never {@code null}; {@link ConflictLog#MASKED} by default
	 */
	public void setConflictLog(ConflictLog conflictLog) {
		this.conflictLog = conflictLog;
	}

	/**
	 * Set the observer that wraps each call of {@link #execute} and {@link #executeBatch} (and of their
	 * {@code InOwnTransaction} variants), for instance a Micrometer Observation per claim. Call before the executor is
	 * used.
	 * @param observer the observer, never {@code null}; {@link ClaimObserver#NO_OP} by default
	 * @since 0.1.0
	 */
	public void setClaimObserver(ClaimObserver observer) {
		this.observer = java.util.Objects.requireNonNull(observer, "observer must not be null");
	}

	/**
	 * Set the fast path consulted before a claim's transaction begins. Call before the executor is used.
	 * @param fastPath the fast path, never {@code null}; {@link FastPathClaims#NONE} by default
	 */
	public void setFastPath(FastPathClaims fastPath) {
		this.fastPath = fastPath;
	}

	/**
	 * Turn shadow mode on or off, for a rollout: in shadow mode every key is claimed as usual, and a hit is counted
	 * and logged as usual (its log line ends in {@code processed (shadow mode)}), but the work runs anyway, in the
	 * same transaction, as it would without the library; the fast path is neither asked nor told. The claimed rows
	 * are what skipping will rely on once shadow mode is off. Call before the executor is used.
	 * @param shadow whether hits run the work instead of skipping it; {@code false} by default
	 * @since 0.1.0
	 */
	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	/**
	 * Set where each claim transaction stores the consumed offsets of the deliveries it settles (claimed or hits),
	 * right before its commit. A transaction with hits is {@linkplain HeldOffsets held} (their first processing's
	 * outputs are sent again after the commit). A hit the fast path answers opens no transaction and stores nothing.
	 * Call before the executor is used.
	 * @param offsets the offsets, never {@code null}; {@link ClaimOffsets#NONE} by default
	 * @since 0.1.0
	 */
	public void setOffsets(ClaimOffsets offsets) {
		this.offsets = java.util.Objects.requireNonNull(offsets, "offsets must not be null");
	}

	/**
	 * Ask the fast path now, in one lookup, about keys this thread will claim one by one afterwards with
	 * {@link #execute} (the rest of a poll, for a record listener): each of those claims is then answered from this
	 * lookup instead of a lookup of its own. Correctness does not depend on it: a key the fast path did not know
	 * goes to the database claim as always (see {@link FastPathClaims#prefetch}). Does nothing without a fast path.
	 * @param requests the claim requests, never {@code null}; keys that will not be claimed cost only their part of
	 * the lookup
	 * @since 0.1.0
	 */
	public void prefetch(List<ClaimRequest> requests) {
		if (hasFastPath()) {
			this.fastPath.prefetch(requests);
		}
	}

	/**
	 * Whether claims consult a fast path before their transaction.
	 * @return {@code false} with {@link FastPathClaims#NONE}, and in shadow mode
	 * @since 0.1.0
	 */
	public boolean hasFastPath() {
		return this.fastPath.enabled() && !this.shadow;
	}

	/**
	 * Claim {@code request} and run {@code work} if the key was not processed before.
	 * @param request what to claim, never {@code null}
	 * @param work the work to run in the claim's transaction, never {@code null}
	 * @param <T> the work's result type
	 * @return {@link ClaimOutcome.Processed} after the work ran and the transaction committed, or
	 * {@link ClaimOutcome.Skipped} for an idempotent hit
	 * @throws Throwable whatever the work threw (after the rollback); {@link TransientClaimException} when the
	 * retries are spent; a {@link org.springframework.dao.DataAccessException} or
	 * {@link org.springframework.transaction.TransactionException} when the database or the commit fails
	 */
	public <T extends @Nullable Object> ClaimOutcome<T> execute(ClaimRequest request, ClaimedWork<T> work)
			throws Throwable {
		return this.observer.observe(request, ClaimMode.TRANSACTIONAL, () -> claimFastOrInTransaction(request, work));
	}

	/** Answer from the fast path when it knows the key, else claim in a transaction. */
	private <T extends @Nullable Object> ClaimOutcome<T> claimFastOrInTransaction(ClaimRequest request,
			ClaimedWork<T> work) throws Throwable {
		if (hasFastPath()) {
			long start = System.nanoTime();
			ClaimResult.Hit known = this.fastPath.lookUp(request);
			if (known != null) {
				fastPathHit(request, known, Duration.ofNanos(System.nanoTime() - start));
				return new ClaimOutcome.Skipped<>(known, true);
			}
		}
		return inTransaction(request::toString, request.scope(), (outcomes) -> claimAndRun(request, work, outcomes));
	}

	/**
	 * Claim every request of a batch in one transaction, run {@code work} once with the positions of the newly
	 * claimed ones (in their original order) and commit, which makes their rows SUCCEEDED. Keys that were processed before,
	 * and repeats of a key within the batch (after its first occurrence), are hits: logged, counted, and not
	 * passed to the work. When every key is a hit the work does not run.
	 * @param requests the claims, in delivery order, never {@code null}
	 * @param work the work, given the positions of the claimed requests
	 * @param <T> the work's result type
	 * @return what was claimed and what was a hit, and the work's result
	 * @throws Throwable as {@link #execute}; a failure rolls back every claim of the batch
	 */
	public <T extends @Nullable Object> BatchOutcome<T> executeBatch(List<ClaimRequest> requests, BatchWork<T> work)
			throws Throwable {
		return this.observer.observeBatch(requests, () -> claimAllFastOrInTransaction(requests, work));
	}

	/** Answer what the fast path knows, claim the rest in one transaction. */
	private <T extends @Nullable Object> BatchOutcome<T> claimAllFastOrInTransaction(List<ClaimRequest> requests,
			BatchWork<T> work) throws Throwable {
		if (!hasFastPath() || requests.isEmpty()) {
			return claimBatch(requests, work, List.of());
		}
		long start = System.nanoTime();
		List<ClaimResult.@Nullable Hit> known = this.fastPath.lookUpAll(requests);
		Duration latency = Duration.ofNanos((System.nanoTime() - start) / requests.size());
		List<Integer> rest = new ArrayList<>();
		List<Integer> fastHits = new ArrayList<>();
		List<Runnable> reports = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			ClaimResult.Hit hit = known.get(i);
			if (hit == null) {
				rest.add(i);
			}
			else {
				ClaimRequest request = requests.get(i);
				fastHits.add(i);
				reports.add(() -> fastPathHit(request, hit, latency));
			}
		}
		if (rest.isEmpty()) {
			reports.forEach(Runnable::run);
			return new BatchOutcome<>(null, List.of(), List.copyOf(fastHits), List.copyOf(fastHits));
		}
		if (fastHits.isEmpty()) {
			return claimBatch(requests, work, List.of());
		}
		// the fast path's hits are reported with the others' commit: if it fails, the batch is processed again
		BatchOutcome<T> claimed = claimBatch(rest.stream().map(requests::get).toList(),
				(positions) -> work.run(positions.stream().map(rest::get).toList()), reports);
		List<Integer> hits = new ArrayList<>(fastHits);
		claimed.hits().forEach((position) -> hits.add(rest.get(position)));
		hits.sort(null);
		return new BatchOutcome<>(claimed.value(), claimed.claimed().stream().map(rest::get).toList(),
				List.copyOf(hits), List.copyOf(fastHits));
	}

	/** Claim a batch in one transaction; {@code held} are outcomes reported with its commit. */
	private <T extends @Nullable Object> BatchOutcome<T> claimBatch(List<ClaimRequest> requests, BatchWork<T> work,
			List<Runnable> held) throws Throwable {
		return inTransaction(() -> requests.size() + " claims", requests.isEmpty() ? "-" : requests.get(0).scope(),
				(outcomes) -> {
					held.forEach(outcomes::onCommit);
					return claimAllAndRun(requests, work, outcomes);
				});
	}

	/**
	 * {@link #executeBatch}, refusing to join a transaction already active on the same database (see
	 * {@link #executeInOwnTransaction}).
	 * @param requests the claims, in delivery order
	 * @param work the work, given the positions of the claimed requests
	 * @param <T> the work's result type
	 * @return as {@link #executeBatch}
	 * @throws IllegalStateException if a transaction on the same database is already active on this thread
	 * @throws Throwable as {@link #executeBatch}
	 */
	public <T extends @Nullable Object> BatchOutcome<T> executeBatchInOwnTransaction(List<ClaimRequest> requests,
			BatchWork<T> work) throws Throwable {
		requireOwnTransaction(() -> requests.isEmpty() ? "an empty batch" : requests.get(0).toString());
		return executeBatch(requests, work);
	}

	/**
	 * Run one claim transaction, retried after a transient claim failure when this executor began it. The outcomes
	 * are reported once the transaction committed (see {@link ClaimListener}).
	 */
	private <R> R inTransaction(Supplier<String> what, String scope, ClaimTransaction<R> claimAndRun) throws Throwable {
		boolean joined = joinsTransaction();
		// another resource's transaction around the claim's, such as a listener container's Kafka transaction (whose
		// manager binds its producer without marking a transaction active, SYNCHRONIZATION_NEVER)
		boolean insideOther = !joined && (TransactionSynchronizationManager.isActualTransactionActive()
				|| !TransactionSynchronizationManager.getResourceMap().isEmpty());
		int retries = 0;
		while (true) {
			ClaimSynchronization outcomes = new ClaimSynchronization(scope, this.innerTransactions);
			try {
				R result = this.transaction.run(what, () -> {
					outcomes.register();
					return outcomes.watching(() -> claimAndRun.run(outcomes));
				}, () -> requireClaimsHeld(outcomes, what));
				if (!outcomes.registered()) {
					// no transaction synchronization: committed if this executor began the transaction; if it joined
					// one, its outcome cannot be known here
					outcomes.reportNow();
				}
				return result;
			}
			catch (TransientClaimException ex) {
				if (outcomes.lost() && retries >= this.maxTransientRetries && !joined) {
					// every run's transaction was ended unnoticed: something in the work or the database ends it each time
					throw new ClaimTransactionLostException(what.get() + ": the database rolled back the transaction"
							+ " of the claims on each of " + (retries + 1) + " runs without an error reaching the"
							+ " application. Something in the work ends it (a ROLLBACK in a stored procedure or on the"
							+ " connection, a DDL statement, a caught deadlock that recurs); the record fails as any"
							+ " failing record does", ex);
				}
				if (joined || retries >= this.maxTransientRetries || (insideOther && outcomes.workRan())) {
					throw ex;
				}
				retries++;
				if (logger.isDebugEnabled()) {
					logger.debug("Retrying {} after a transient failure ({} of {})", what.get(), retries,
							this.maxTransientRetries, ex);
				}
			}
		}
	}

	/**
	 * Right before the commit, after every other step the transaction takes before it: the transaction must still hold
	 * the claims that made the work run. A transaction the database rolled back without the work seeing an error is
	 * logged at WARN: something hid that error.
	 */
	private static void requireClaimsHeld(ClaimSynchronization outcomes, Supplier<String> what) {
		try {
			outcomes.requireClaimsHeld();
		}
		catch (TransientClaimException ex) {
			outcomes.lost(true);
			logger.warn("{}: {}", what.get(), ex.getMessage());
			throw ex;
		}
	}

	/**
	 * Whether the claim joins a transaction already active on the business database. Another resource's transaction
	 * (a container's {@code KafkaTransactionManager}, a second DataSource's) does not count: the claim then begins its
	 * own, which this executor owns and may retry.
	 */
	private boolean joinsTransaction() {
		if (this.transactionManager instanceof ResourceTransactionManager resourceManager) {
			return TransactionSynchronizationManager.hasResource(resourceManager.getResourceFactory());
		}
		return TransactionSynchronizationManager.isActualTransactionActive();
	}

	/** The claims and work of one transaction, reporting their outcomes to the synchronization. */
	@FunctionalInterface
	private interface ClaimTransaction<R> {

		R run(ClaimSynchronization outcomes) throws Throwable;

	}

	/**
	 * Like {@link #execute}, but refuse to join a transaction already active on the same database: for callers
	 * that commit something after this method returns (a Kafka offset) and rely on the claim's transaction having
	 * committed by then. A transaction begun by someone else would commit later, after the offset.
	 * @param request what to claim, never {@code null}
	 * @param work the work to run in the claim's transaction, never {@code null}
	 * @param <T> the work's result type
	 * @return as {@link #execute}
	 * @throws IllegalStateException if a transaction on the same database is already active on this thread
	 * @throws Throwable as {@link #execute}
	 */
	public <T extends @Nullable Object> ClaimOutcome<T> executeInOwnTransaction(ClaimRequest request,
			ClaimedWork<T> work) throws Throwable {
		requireOwnTransaction(request::toString);
		return execute(request, work);
	}

	private void requireOwnTransaction(Supplier<String> what) {
		if (this.transactionManager instanceof ResourceTransactionManager resourceManager
				&& TransactionSynchronizationManager.hasResource(resourceManager.getResourceFactory())) {
			throw new IllegalStateException("A transaction on the business database is already active when claiming "
					+ what.get() + "; it would commit after the caller commits the offset. Remove the listener container's "
					+ "transaction manager and any @Transactional around the listener: the claim's transaction is the "
					+ "outermost one.");
		}
	}

	private <T extends @Nullable Object> ClaimOutcome<T> claimAndRun(ClaimRequest request, ClaimedWork<T> work,
			ClaimSynchronization outcomes) throws Throwable {
		long start = System.nanoTime();
		ClaimResult result = this.store.claim(request);
		Duration latency = Duration.ofNanos(System.nanoTime() - start);
		remember(request, result);
		boolean reclaimed = (result instanceof ClaimResult.Claimed claimed) && claimed.reclaimed();
		if (result instanceof ClaimResult.Hit hit) {
			outcomes.onCommit(() -> hit(request, hit, latency));
			if (!this.shadow) {
				HeldOffsets.hold(); // what the first processing sent is sent again after the commit
				storeOffsets(List.of(request), outcomes);
				return new ClaimOutcome.Skipped<>(hit);
			}
		}
		else {
			outcomes.onCommit(() -> this.listener.onClaimed(request, reclaimed, latency));
		}
		outcomes.checkpoint(this.store.checkpoint());
		T value = IdempotencyContext.runBound(request, work);
		storeOffsets(List.of(request), outcomes);
		return new ClaimOutcome.Processed<>(value, reclaimed);
	}

	private <T extends @Nullable Object> BatchOutcome<T> claimAllAndRun(List<ClaimRequest> requests,
			BatchWork<T> work, ClaimSynchronization outcomes) throws Throwable {
		// each key is claimed once, by its first occurrence; uniquePositions holds where each request's key is in unique
		List<ClaimRequest> unique = new ArrayList<>();
		List<Integer> uniquePositions = new ArrayList<>(requests.size());
		BitSet repeats = new BitSet(requests.size());
		Map<ClaimRequest, Integer> seen = new HashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			ClaimRequest request = requests.get(i);
			Integer first = seen.putIfAbsent(new ClaimRequest(request.scope(), request.key(), null), unique.size());
			if (first == null) {
				uniquePositions.add(unique.size());
				unique.add(request);
			}
			else {
				uniquePositions.add(first);
				repeats.set(i);
			}
		}
		Instant claimedAt = Instant.now();
		long start = System.nanoTime();
		List<ClaimResult> results = this.store.claimAll(unique);
		Duration latency = Duration.ofNanos((System.nanoTime() - start) / Math.max(1, unique.size()));
		List<Integer> claimed = new ArrayList<>();
		List<Integer> hits = new ArrayList<>();
		for (int i = 0; i < requests.size(); i++) {
			ClaimRequest request = requests.get(i);
			int position = uniquePositions.get(i);
			ClaimResult result = results.get(position);
			if (repeats.get(i)) {
				// a repeat within the batch: a hit on its first occurrence's claim, which this transaction commits, or on
				// the row that occurrence found; its payload and delivery are compared with the first occurrence's
				ClaimRequest first = unique.get(position);
				ClaimResult.Hit onFirst = (result instanceof ClaimResult.Hit found)
						? new ClaimResult.Hit(found.status(), found.firstProcessedAt(), first.fingerprint(), first.source())
						: new ClaimResult.Hit(ClaimStatus.SUCCEEDED, claimedAt, first.fingerprint(), first.source());
				outcomes.onCommit(() -> hit(request, onFirst, Duration.ZERO));
				(this.shadow ? claimed : hits).add(i);
				continue;
			}
			remember(request, result);
			if (result instanceof ClaimResult.Hit hit) {
				outcomes.onCommit(() -> hit(request, hit, latency));
				(this.shadow ? claimed : hits).add(i);
			}
			else {
				boolean reclaimed = ((ClaimResult.Claimed) result).reclaimed();
				outcomes.onCommit(() -> this.listener.onClaimed(request, reclaimed, latency));
				claimed.add(i);
			}
		}
		if (!hits.isEmpty()) {
			HeldOffsets.hold(); // what the hits' first processing sent is sent again after the commit
		}
		if (claimed.isEmpty()) {
			storeOffsets(requests, outcomes);
			return new BatchOutcome<>(null, List.of(), List.copyOf(hits));
		}
		outcomes.checkpoint(this.store.checkpoint());
		T value = work.run(List.copyOf(claimed));
		storeOffsets(requests, outcomes);
		return new BatchOutcome<>(value, List.copyOf(claimed), List.copyOf(hits));
	}

	/**
	 * Store the offsets of the deliveries a transaction settles, in it, after its work; what the offsets ask for once
	 * it committed runs then.
	 */
	private void storeOffsets(List<ClaimRequest> requests, ClaimSynchronization outcomes) {
		Runnable committed = this.offsets.store(requests.stream().map(ClaimRequest::source).toList());
		if (committed != null) {
			outcomes.onCommit(committed);
		}
	}

	/** Tell the fast path what a claim found, once its transaction committed; in shadow mode it is not told. */
	private void remember(ClaimRequest request, ClaimResult result) {
		if (!this.shadow) {
			this.fastPath.rememberAfterCommit(request, result);
		}
	}

	/** Count and log a hit the fast path answered, and a payload conflict if the fingerprints differ. */
	private void fastPathHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		this.listener.onFastPathHit(request, hit, latency);
		logHit(request, hit);
	}

	/** Count and log a hit, and a payload conflict if the fingerprints differ. */
	private void hit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		this.listener.onHit(request, hit, latency);
		logHit(request, hit);
	}

	private void logHit(ClaimRequest request, ClaimResult.Hit hit) {
		this.hitLog.log(request, hit, this.shadow);
		if (request.conflictsWith(hit)) {
			this.listener.onConflict(request, hit);
			this.conflictLog.log(request, hit);
		}
	}

}
