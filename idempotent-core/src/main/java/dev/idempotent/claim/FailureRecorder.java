package dev.idempotent.claim;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionDefinition;

/**
 * Records a key as FAILED once its delivery is given up on (dead-lettered), in a transaction of its own: the
 * business transaction that failed was rolled back together with its claim (docs/semantics.md, "Statuses"). The row keeps
 * the attempts and the last error (exception class and message, at most {@value #MAX_ERROR_LENGTH} characters);
 * a replay of the record claims the FAILED row again. A failed rollback (the database unreachable) is logged at
 * DEBUG only, the write's own failure is thrown. Thread-safe.
 *
 * @since 0.1.0
 */
public class FailureRecorder {

	/** The longest last-error text stored. */
	public static final int MAX_ERROR_LENGTH = 1000;

	private final ClaimStore store;

	private final TransactionRunner transaction;

	private volatile ClaimOffsets offsets = ClaimOffsets.NONE;

	/**
	 * Create a recorder.
	 * @param store the claim store
	 * @param transactionManager the business database's transaction manager
	 */
	public FailureRecorder(ClaimStore store, PlatformTransactionManager transactionManager) {
		this.store = store;
		this.transaction = new TransactionRunner(transactionManager,
				new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW));
	}

	/**
	 * Set where the FAILED row's transaction stores the consumed offset of the dead-lettered delivery, which it settles.
	 * Call before the recorder is used.
	 * @param offsets the offsets, never {@code null}; {@link ClaimOffsets#NONE} by default
	 * @since 0.1.0
	 */
	public void setOffsets(ClaimOffsets offsets) {
		this.offsets = java.util.Objects.requireNonNull(offsets, "offsets must not be null");
	}

	/**
	 * Record the failure.
	 * @param request the request whose work failed
	 * @param attempts how many times the delivery was attempted, 1 or more
	 * @param error the last error
	 * @throws org.springframework.dao.DataAccessException if the database cannot be written
	 */
	public void record(ClaimRequest request, int attempts, Throwable error) {
		String lastError = describe(error);
		Runnable committed;
		try {
			committed = this.transaction.run(() -> "recording " + request + " as FAILED", () -> {
				this.store.markFailed(request, attempts, lastError);
				return this.offsets.store(java.util.Collections.singletonList(request.source()));
			});
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// markFailed throws no checked exception
			throw new IllegalStateException(ex);
		}
		if (committed != null) {
			committed.run();
		}
	}

	/**
	 * Describe an error for the last-error column: the innermost cause's class and message.
	 * @param error the error
	 * @return at most {@value #MAX_ERROR_LENGTH} characters
	 */
	public static String describe(Throwable error) {
		Throwable root = error;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String text = root.getClass().getName() + ": " + root.getMessage();
		return (text.length() <= MAX_ERROR_LENGTH) ? text : text.substring(0, MAX_ERROR_LENGTH);
	}

}
