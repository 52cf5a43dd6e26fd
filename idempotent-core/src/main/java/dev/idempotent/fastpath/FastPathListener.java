package dev.idempotent.fastpath;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Observes the fast path, e.g. to count its lookups. Every method has a no-op default. Called on the consumer
 * thread; implementations must be fast, must not throw, and must be thread-safe. The hits the fast path answers
 * are also reported to the executor's {@link dev.idempotent.metrics.ClaimListener}, as
 * {@link dev.idempotent.metrics.ClaimListener#onFastPathHit}.
 *
 * @since 0.1.0
 */
public interface FastPathListener {

	/** A listener that does nothing. */
	FastPathListener NO_OP = new FastPathListener() {
	};

	/**
	 * The fast path was asked about keys of one scope, in one lookup.
	 * @param scope the scope of the keys
	 * @param known how many keys it knew (hits without the database)
	 * @param unknown how many it did not know (claimed in the database)
	 * @param failed how many it could not answer, an error or a timeout (claimed in the database)
	 * @param latency how long the lookup took
	 */
	default void onLookup(String scope, int known, int unknown, int failed, Duration latency) {
	}

	/**
	 * The fast path was not asked, paused after an error: the keys are claimed in the database.
	 * @param scope the scope of the keys
	 * @param keys how many keys, 1 or more
	 */
	default void onBypassed(String scope, int keys) {
	}

	/**
	 * Keys were remembered after their database commit, or could not be.
	 * @param keys how many keys, 1 or more
	 * @param error {@code null} when they were stored, else the failure
	 */
	default void onRemember(int keys, @Nullable Exception error) {
	}

}
