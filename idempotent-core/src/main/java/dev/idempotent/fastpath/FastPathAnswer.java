package dev.idempotent.fastpath;

import dev.idempotent.claim.ClaimResult;

/**
 * What the fast path knows of a key: {@link Known} (processed before: an idempotent hit without the database),
 * {@link #UNKNOWN} (claim it in the database), or {@link Failed} (the store could not answer: claim it in the
 * database too).
 *
 * @since 0.1.0
 */
public sealed interface FastPathAnswer permits FastPathAnswer.Known, FastPathAnswer.Unknown, FastPathAnswer.Failed {

	/** The key is not in the fast path. */
	FastPathAnswer UNKNOWN = new Unknown();

	/**
	 * The key's claim committed before: the record is an idempotent hit.
	 *
	 * @param hit what was stored with the key (status SUCCEEDED, when it was processed, its delivery source and
	 * payload fingerprint where known), never {@code null}
	 */
	record Known(ClaimResult.Hit hit) implements FastPathAnswer {
	}

	/** The key is not in the fast path: the database claim decides. Use {@link #UNKNOWN}. */
	record Unknown() implements FastPathAnswer {
	}

	/**
	 * The fast path could not answer (an error or a timeout): the database claim decides.
	 *
	 * @param error what went wrong, never {@code null}
	 */
	record Failed(Exception error) implements FastPathAnswer {
	}

}
