package dev.idempotent.claim;

import org.jspecify.annotations.Nullable;

/**
 * The work to run once a key is claimed, e.g. a listener method. It runs in the claim's transaction.
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface ClaimedWork<T extends @Nullable Object> {

	/**
	 * Run the work.
	 * @return the result, may be {@code null}
	 * @throws Throwable any failure; it rolls back the claim together with the work's own writes
	 */
	T run() throws Throwable;

}
