package dev.idempotent.claim;

import org.jspecify.annotations.Nullable;

/**
 * What {@link TransactionalClaimExecutor#execute} did: ran the work and committed, or skipped it as a hit.
 *
 * @param <T> the work's result type
 * @since 0.1.0
 */
public sealed interface ClaimOutcome<T extends @Nullable Object> permits ClaimOutcome.Processed, ClaimOutcome.Skipped {

	/**
	 * Return the work's result.
	 * @return the result, or {@code null} when the work was skipped or returned {@code null}
	 */
	@Nullable T value();

	/**
	 * The key was claimed, the work ran and the transaction committed.
	 *
	 * @param value the work's result, may be {@code null}
	 * @param reclaimed whether a FAILED row was taken over
	 * @param <T> the work's result type
	 */
	record Processed<T extends @Nullable Object>(@Nullable T value, boolean reclaimed) implements ClaimOutcome<T> {
	}

	/**
	 * An idempotent hit: the work did not run.
	 *
	 * @param hit what the claim found
	 * @param fromFastPath whether the fast path answered without the database; the fast path knows only claims that
	 * stored nothing a hit must read back ({@link dev.idempotent.fastpath.DatabaseOnlyKeys}), so such a hit has no
	 * stored outputs to send again
	 * @param <T> the work's result type
	 */
	record Skipped<T extends @Nullable Object>(ClaimResult.Hit hit, boolean fromFastPath) implements ClaimOutcome<T> {

		/**
		 * A hit found by the database claim.
		 * @param hit what the claim found
		 */
		public Skipped(ClaimResult.Hit hit) {
			this(hit, false);
		}

		@Override
		public @Nullable T value() {
			return null;
		}

	}

}
