package dev.idempotent.claim;

import java.time.Duration;

import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.observation.ClaimObserver;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * Runs work under a lease ({@link ClaimMode#LEASED}, docs/semantics.md "LEASED mode"), for side effects that cannot join
 * the database transaction:
 * <ol>
 * <li>claim the key with a lease, in a short transaction of its own that commits before the work starts;</li>
 * <li>run the work outside that transaction, with the key bound to {@link IdempotencyContext};</li>
 * <li>on success, mark the row SUCCEEDED in another short transaction; on failure, give the lease up (the row
 * becomes FAILED) so that a retry can claim it at once, and rethrow.</li>
 * </ol>
 * A SUCCEEDED row is a hit. A live lease held by another consumer throws {@link ClaimInProgressException}
 * (retry later; not a hit, not a failure of the record). An expired lease is taken over by exactly one
 * consumer. What this guarantees: the work runs at least once per key (unless dead-lettered), always under the
 * same key, and runs again only if a consumer dies, or outlives its lease, between starting the work and
 * recording SUCCEEDED; the remote system deduplicates those repeats by the key. Leases compare with the
 * consumers' clocks (UTC): keep leases far longer than clock skew and the work's longest run.
 * <p>Counting ({@link ClaimListener}): a claim is counted when its lease transaction has committed, before the work
 * starts. From that commit on the side effect may run, and no rollback takes it back, so each committed lease is
 * one attempt of the side effect and is counted as one: a record whose work fails releases its lease (the row
 * becomes FAILED) and its retry counts as {@code reclaimed}. A hit is counted after the transaction that read the
 * SUCCEEDED row; a live lease held elsewhere counts nothing. Transactions are driven through the
 * {@link PlatformTransactionManager} directly, as in {@link TransactionalClaimExecutor}, so that a failed rollback
 * during a database outage logs nothing above DEBUG.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public class LeasedClaimExecutor {

	private static final Logger logger = LoggerFactory.getLogger(LeasedClaimExecutor.class);

	private final LeasedClaimStore store;

	private final TransactionRunner ownTransaction;

	private final ClaimListener listener;

	private final int maxTransientRetries;

	private volatile HitLog hitLog = HitLog.MASKED;

	private volatile ClaimObserver observer = ClaimObserver.NO_OP;

	private volatile ClaimOffsets offsets = ClaimOffsets.NONE;

	private volatile boolean shadow;

	/**
	 * Create an executor.
	 * @param store the lease store
	 * @param transactionManager the business database's transaction manager
	 * @param listener observes claims
	 * @param maxTransientRetries how often to retry a lease claim after a deadlock or lock-wait timeout
	 */
	public LeasedClaimExecutor(LeasedClaimStore store, PlatformTransactionManager transactionManager,
			ClaimListener listener, int maxTransientRetries) {
		this.store = store;
		this.ownTransaction = new TransactionRunner(transactionManager,
				new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW));
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
	 * Set the observer that wraps each call of {@link #execute}: the lease's claim, the work and the completion.
	 * Call before the executor is used.
	 * @param observer the observer, never {@code null}; {@link ClaimObserver#NO_OP} by default
	 * @since 0.1.0
	 */
	public void setClaimObserver(ClaimObserver observer) {
		this.observer = java.util.Objects.requireNonNull(observer, "observer must not be null");
	}

	/**
	 * Turn shadow mode on or off (see {@link TransactionalClaimExecutor#setShadow}): a key already done is counted and
	 * logged as a hit, and the work runs anyway, outside any lease, leaving the done row as it is. A live lease held
	 * elsewhere is waited for as without shadow mode. Call before the executor is used.
	 * @param shadow whether hits run the work instead of skipping it; {@code false} by default
	 * @since 0.1.0
	 */
	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	/**
	 * Set where the completion's transaction stores the consumed offset of the delivery it settles; the lease's
	 * transaction checks that the stored offset did not move before the work runs. A hit (its claim's transaction
	 * committed before the work could be skipped) stores nothing. Call before the executor is used.
	 * @param offsets the offsets, never {@code null}; {@link ClaimOffsets#NONE} by default
	 * @since 0.1.0
	 */
	public void setOffsets(ClaimOffsets offsets) {
		this.offsets = java.util.Objects.requireNonNull(offsets, "offsets must not be null");
	}

	/**
	 * Claim {@code request} with a lease and run {@code work} if the key is not done or held elsewhere.
	 * @param request what to claim
	 * @param lease how long the lease lasts; longer than the work's longest run
	 * @param work the side effect
	 * @param <T> the work's result type
	 * @return {@link ClaimOutcome.Processed} after the work ran (and SUCCEEDED was recorded), or
	 * {@link ClaimOutcome.Skipped} for a hit
	 * @throws ClaimInProgressException if another consumer holds a live lease on the key
	 * @throws Throwable whatever the work threw, after the lease was given up
	 */
	public <T extends @Nullable Object> ClaimOutcome<T> execute(ClaimRequest request, Duration lease,
			ClaimedWork<T> work) throws Throwable {
		return execute(request, lease, work, () -> {
		});
	}

	/**
	 * Like {@link #execute(ClaimRequest, Duration, ClaimedWork)}, with a step that runs in the completion's
	 * transaction, after SUCCEEDED was written and only if it was (the lease was still held), for writes that belong
	 * to the completion, such as the work's outputs.
	 * @param request what to claim
	 * @param lease how long the lease lasts; longer than the work's longest run
	 * @param work the side effect
	 * @param completion runs in the completion's transaction; a failure rolls the completion back and is thrown
	 * @param <T> the work's result type
	 * @return as {@link #execute(ClaimRequest, Duration, ClaimedWork)}
	 * @throws Throwable as {@link #execute(ClaimRequest, Duration, ClaimedWork)}, or what {@code completion} threw
	 * @since 0.1.0
	 */
	public <T extends @Nullable Object> ClaimOutcome<T> execute(ClaimRequest request, Duration lease,
			ClaimedWork<T> work, Runnable completion) throws Throwable {
		return this.observer.observe(request, ClaimMode.LEASED, () -> leaseAndRun(request, lease, work, completion));
	}

	private <T extends @Nullable Object> ClaimOutcome<T> leaseAndRun(ClaimRequest request, Duration lease,
			ClaimedWork<T> work, Runnable completion) throws Throwable {
		long start = System.nanoTime();
		LeaseResult result = claim(request, lease);
		Duration latency = Duration.ofNanos(System.nanoTime() - start);
		if (result instanceof LeaseResult.Done done) {
			// in shadow mode the work runs first: a hit is counted once, when its work succeeded, as a claim is
			T value = this.shadow ? IdempotencyContext.runBound(request, work) : null;
			this.listener.onHit(request, done.hit(), latency);
			this.hitLog.log(request, done.hit(), this.shadow);
			return this.shadow ? new ClaimOutcome.Processed<>(value, false) : new ClaimOutcome.Skipped<>(done.hit());
		}
		if (result instanceof LeaseResult.Held held) {
			throw new ClaimInProgressException(request, held.leaseUntil());
		}
		LeaseResult.Acquired acquired = (LeaseResult.Acquired) result;
		this.listener.onClaimed(request, acquired.reclaimed(), latency);
		T value;
		try {
			value = IdempotencyContext.runBound(request, work);
		}
		catch (Throwable ex) {
			try {
				this.ownTransaction.run(() -> "the release of " + request, () -> {
					this.store.releaseLease(request, acquired.attempt(), FailureRecorder.describe(ex));
					return null;
				});
			}
			catch (Throwable releaseFailure) {
				// the lease then expires by itself; the work's own failure is what the caller must see
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
		Runnable[] committed = new Runnable[1];
		boolean completed = this.ownTransaction.run(() -> "the completion of " + request,
				() -> {
					boolean done = this.store.completeLease(request, acquired.attempt());
					if (done) {
						completion.run();
						committed[0] = this.offsets.store(java.util.Collections.singletonList(request.source()));
					}
					return done;
				});
		if (committed[0] != null) {
			committed[0].run();
		}
		if (!completed) {
			logger.warn("Lease on scope={} key={} expired before the work finished and was taken over by another "
					+ "consumer; the side effect may run again under the same key. Increase the lease.",
					request.scope(), this.hitLog.masker().mask(request.key()));
		}
		return new ClaimOutcome.Processed<>(value, acquired.reclaimed());
	}

	private LeaseResult claim(ClaimRequest request, Duration lease) throws Throwable {
		for (int retries = 0;; retries++) {
			try {
				return this.ownTransaction.run(request::toString, () -> {
					LeaseResult result = this.store.claimLease(request, lease);
					if (result instanceof LeaseResult.Acquired) {
						// the side effect runs before its offset is stored: not past deliveries the database lost
						this.offsets.check(java.util.Collections.singletonList(request.source()));
					}
					return result;
				});
			}
			catch (TransientClaimException ex) {
				if (retries >= this.maxTransientRetries) {
					throw ex;
				}
			}
		}
	}

}
