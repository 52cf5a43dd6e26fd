package dev.idempotent.claim;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The work of a batch, run once for the newly claimed records of the batch, in the claims' transaction.
 *
 * @param <T> the result type
 * @since 0.1.0
 */
@FunctionalInterface
public interface BatchWork<T extends @Nullable Object> {

	/**
	 * Run the work.
	 * @param claimed the positions, in the batch, of the requests that were claimed, ascending; never empty
	 * @return the result, may be {@code null}
	 * @throws Throwable any failure; it rolls back every claim of the batch with the work's own writes
	 */
	T run(List<Integer> claimed) throws Throwable;

}
