package dev.idempotent.observation;

import java.util.List;

import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import org.jspecify.annotations.Nullable;

/**
 * Wraps each claim of the claim executors, from their public entry point to their return: the claim, the work
 * and the commit, with any retry after a transient failure inside. Where {@link dev.idempotent.metrics.ClaimListener}
 * is told outcomes after the fact (once per committed record), an observer surrounds the call, so that it can time
 * it and make it the current context of everything the claim does (a tracing span whose children are the work's
 * own spans). The library's implementation is {@link ObservationClaimObserver} (Micrometer Observation); the
 * default, {@link #NO_OP}, only calls through.
 * <p>Every method has a calling-through default, so an implementation overrides only what it needs. An implementation
 * must call the given {@code claim} exactly once, on the calling thread, return what it returned and rethrow what
 * it threw, unchanged; it must not throw failures of its own. Methods are called on the consumer thread.
 * <p>Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
public interface ClaimObserver {

	/** An observer that only calls through. */
	ClaimObserver NO_OP = new ClaimObserver() {
	};

	/**
	 * Observe one claim: a call of {@code TransactionalClaimExecutor.execute} or {@code LeasedClaimExecutor.execute}.
	 * @param request what is claimed, never {@code null}
	 * @param mode the executor's mode, never {@code null}
	 * @param claim the claim to run, exactly once, never {@code null}
	 * @param <T> the work's result type
	 * @return what {@code claim} returned
	 * @throws Throwable what {@code claim} threw, unchanged
	 */
	default <T extends @Nullable Object> ClaimOutcome<T> observe(ClaimRequest request, ClaimMode mode,
			Observed<ClaimOutcome<T>> claim) throws Throwable {
		return claim.call();
	}

	/**
	 * Observe one batch claim: a call of {@code TransactionalClaimExecutor.executeBatch}, all of whose claims share
	 * one transaction.
	 * @param requests what is claimed, in delivery order, never {@code null}
	 * @param claim the batch claim to run, exactly once, never {@code null}
	 * @param <T> the work's result type
	 * @return what {@code claim} returned
	 * @throws Throwable what {@code claim} threw, unchanged
	 */
	default <T extends @Nullable Object> BatchOutcome<T> observeBatch(List<ClaimRequest> requests,
			Observed<BatchOutcome<T>> claim) throws Throwable {
		return claim.call();
	}

	/**
	 * A delivery was rejected before any claim because its key is bad input; nothing reaches the executor. Called by
	 * the code that validates keys (through {@link dev.idempotent.metrics.ClaimListener#onRejected} in the Kafka
	 * integration and {@code IdempotentTemplate}).
	 * @param scope the scope the key would have been claimed in, never {@code null}
	 * @param error why the key was rejected, never {@code null}
	 */
	default void rejected(String scope, InvalidIdempotencyKeyException error) {
	}

	/**
	 * The call an observer wraps.
	 *
	 * @param <R> its result type
	 */
	@FunctionalInterface
	interface Observed<R> {

		/**
		 * Run the call.
		 * @return its result
		 * @throws Throwable its failure
		 */
		R call() throws Throwable;

	}

}
