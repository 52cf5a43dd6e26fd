package dev.idempotent.claim;

import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs work in a transaction of a {@link PlatformTransactionManager}, driving it directly (begin, then commit or
 * roll back) instead of through a {@code TransactionTemplate}, so that what is logged matches what
 * docs/semantics.md promises: when the work fails and the rollback fails too (the database went away in the
 * middle of the transaction), the work's failure is the one thrown, the rollback's is added to it as suppressed and
 * logged at DEBUG only. A {@code TransactionTemplate} would log "Application exception overridden by rollback
 * exception" at ERROR, with both stack traces, and throw the rollback's failure instead, during every expected
 * database outage. Thread-safe.
 */
final class TransactionRunner {

	private static final Logger logger = LoggerFactory.getLogger(TransactionRunner.class);

	private final PlatformTransactionManager transactionManager;

	private final TransactionDefinition definition;

	private final Predicate<Throwable> conflict;

	/**
	 * Create a runner whose failures are passed on as they are.
	 * @param transactionManager the transaction manager, never {@code null}
	 * @param definition the transaction's propagation and other attributes, never {@code null}
	 */
	TransactionRunner(PlatformTransactionManager transactionManager, TransactionDefinition definition) {
		this(transactionManager, definition, (failure) -> false);
	}

	/**
	 * Create a runner.
	 * @param transactionManager the transaction manager, never {@code null}
	 * @param definition the transaction's propagation and other attributes, never {@code null}
	 * @param conflict tells the failures the database raises when it rolls the transaction back for a conflict with
	 * another transaction (see {@link ClaimStore#isConflict}); wherever they occur (the work, the flush, the steps
	 * before the commit, the commit), they are thrown as {@link TransientClaimException}
	 */
	TransactionRunner(PlatformTransactionManager transactionManager, TransactionDefinition definition,
			Predicate<Throwable> conflict) {
		this.transactionManager = transactionManager;
		this.definition = definition;
		this.conflict = conflict;
	}

	/** Work that may throw anything. */
	@FunctionalInterface
	interface Work<R extends @Nullable Object> {

		R run() throws Throwable;

	}

	/**
	 * Begin (or join, as the definition says) a transaction, run {@code work} in it and commit; roll back if the work
	 * throws anything.
	 * @param what describes the work for the DEBUG line of a failed rollback
	 * @param work the work
	 * @param <R> the work's result type
	 * @return the work's result
	 * @throws Throwable what the work threw (with a failed rollback as suppressed); a {@link TransientClaimException}
	 * for a conflict the database resolved by rolling the transaction back; a
	 * {@link org.springframework.transaction.TransactionException} if the transaction cannot begin or commit
	 */
	<R extends @Nullable Object> R run(Supplier<String> what, Work<R> work) throws Throwable {
		return run(what, work, null);
	}

	/**
	 * {@link #run(Supplier, Work)}, and once the work returned: flush what the transaction's resources hold back until
	 * the commit ({@link TransactionStatus#flush()}: a JPA persistence context), then run {@code beforeCommit} as the
	 * last step before the commit, after every other {@code beforeCommit} callback of the transaction's synchronizations
	 * (a MyBatis batch executor and {@code @TransactionalEventListener(phase = BEFORE_COMMIT)} methods write there); in
	 * a joined transaction, that is when its owner commits it. A failure of either rolls the transaction back and is
	 * thrown. Without transaction synchronization, {@code beforeCommit} runs right after the flush.
	 * @param what describes the work for the DEBUG line of a failed rollback
	 * @param work the work
	 * @param beforeCommit the last step inside the transaction, or {@code null} for none (and no flush)
	 * @param <R> the work's result type
	 * @return the work's result
	 * @throws Throwable as {@link #run(Supplier, Work)}
	 */
	<R extends @Nullable Object> R run(Supplier<String> what, Work<R> work, @Nullable Runnable beforeCommit)
			throws Throwable {
		TransactionStatus status = this.transactionManager.getTransaction(this.definition);
		R result;
		try {
			result = work.run();
			if (beforeCommit != null) {
				status.flush();
				runLast(beforeCommit);
			}
		}
		catch (Throwable ex) {
			rollback(status, ex, what);
			throw classified(ex, what);
		}
		try {
			this.transactionManager.commit(status);
		}
		catch (RuntimeException ex) {
			// a callback before the commit failed (the transaction was rolled back), or the commit itself
			throw classified(ex, what);
		}
		return result;
	}

	/**
	 * Run a step after every {@code beforeCommit} callback registered so far: registered now, with the lowest precedence,
	 * it comes last among the transaction's synchronizations, which Spring sorts by order and then by registration.
	 */
	private static void runLast(Runnable step) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			step.run();
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public int getOrder() {
				return Ordered.LOWEST_PRECEDENCE;
			}

			@Override
			public void beforeCommit(boolean readOnly) {
				step.run();
			}

		});
	}

	/** A conflict the database resolved by rolling the transaction back as a transient failure; anything else as is. */
	private Throwable classified(Throwable failure, Supplier<String> what) {
		if (failure instanceof TransientClaimException || !this.conflict.test(failure)) {
			return failure;
		}
		return new TransientClaimException("The database rolled back the transaction of " + what.get() + " for a"
				+ " conflict with another transaction (a deadlock, another cluster node's transaction, a certification"
				+ " failure at COMMIT); it runs again", failure);
	}

	private void rollback(TransactionStatus status, Throwable failure, Supplier<String> what) {
		try {
			this.transactionManager.rollback(status);
		}
		catch (RuntimeException | Error rollbackFailure) {
			// the database is probably unreachable, which is what failed the work: the work's failure tells the caller
			failure.addSuppressed(rollbackFailure);
			if (logger.isDebugEnabled()) {
				logger.debug("The rollback after a failure of {} failed too (the database is probably unreachable); "
						+ "the transaction ends with the connection", what.get(), rollbackFailure);
			}
		}
	}

}
