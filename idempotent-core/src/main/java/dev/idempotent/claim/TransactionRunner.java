package dev.idempotent.claim;

import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;

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

	private final Predicate<RuntimeException> conflictAtCommit;

	/**
	 * Create a runner whose commit failures are passed on as they are.
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
	 * @param conflictAtCommit tells the commit failures that are conflicts the database reports at COMMIT (see
	 * {@link ClaimStore#isConflict}); they are thrown as {@link TransientClaimException}
	 */
	TransactionRunner(PlatformTransactionManager transactionManager, TransactionDefinition definition,
			Predicate<RuntimeException> conflictAtCommit) {
		this.transactionManager = transactionManager;
		this.definition = definition;
		this.conflictAtCommit = conflictAtCommit;
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
	 * @throws Throwable what the work threw (with a failed rollback as suppressed); a
	 * {@link TransientClaimException} if the database refused the commit for a conflict (it rolled the transaction
	 * back); a {@link org.springframework.transaction.TransactionException} if the transaction cannot begin or commit
	 */
	<R extends @Nullable Object> R run(Supplier<String> what, Work<R> work) throws Throwable {
		return run(what, work, null);
	}

	/**
	 * {@link #run(Supplier, Work)}, and once the work returned, still in the transaction: flush what its resources hold
	 * back until the commit ({@link TransactionStatus#flush()}: a JPA persistence context, a MyBatis batch executor),
	 * then run {@code beforeCommit}. A failure of either rolls the transaction back and is thrown.
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
				beforeCommit.run();
			}
		}
		catch (Throwable ex) {
			rollback(status, ex, what);
			throw ex;
		}
		try {
			this.transactionManager.commit(status);
		}
		catch (RuntimeException ex) {
			if (this.conflictAtCommit.test(ex)) {
				throw new TransientClaimException("The database refused to commit " + what.get() + " for a conflict it"
						+ " reports at COMMIT (a cluster's certification failure, a serialization failure) and rolled it"
						+ " back", ex);
			}
			throw ex;
		}
		return result;
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
