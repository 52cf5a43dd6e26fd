package dev.idempotent.claim;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What {@link TransactionalClaimExecutor#executeBatch} did.
 *
 * @param value the work's result, or {@code null} if every request was a hit
 * @param claimed the positions of the requests that were claimed and processed, ascending
 * @param hits the positions of the requests that were hits (processed before, or repeated within the batch)
 * @param fastPathHits the positions among {@code hits} that the fast path answered without the database, ascending:
 * their claims stored nothing a hit must read (the fast path knows only such claims)
 * @param <T> the work's result type
 * @since 0.1.0
 */
public record BatchOutcome<T extends @Nullable Object>(@Nullable T value, List<Integer> claimed, List<Integer> hits,
		List<Integer> fastPathHits) {

	/**
	 * An outcome without fast-path hits.
	 * @param value the work's result, or {@code null} if every request was a hit
	 * @param claimed the positions of the requests that were claimed and processed, ascending
	 * @param hits the positions of the requests that were hits
	 */
	public BatchOutcome(@Nullable T value, List<Integer> claimed, List<Integer> hits) {
		this(value, claimed, hits, List.of());
	}

}
