package dev.idempotent.fastpath;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import org.jspecify.annotations.Nullable;

/**
 * Storage SPI of the fast path: a store of keys whose claims the database committed, consulted before a claim's
 * transaction begins (docs/fast-path.md). It is an accelerator, never the authority:
 * <ul>
 * <li>{@link #knows} answers {@link FastPathAnswer.Known} only for a key it was told about by {@link #remember};
 * anything else is {@link FastPathAnswer#UNKNOWN}, and the database claim decides;</li>
 * <li>{@link #remember} is called only after the database transaction that claimed the key (or found it
 * SUCCEEDED) committed; it must forget the key no later than the idempotency table's retention does;</li>
 * <li>a failure or a timeout is {@link FastPathAnswer.Failed}, never an exception; the caller then claims in the
 * database, so losing the fast path costs speed, never correctness.</li>
 * </ul>
 * Implementations bound every call by a timeout of their own and must be thread-safe.
 *
 * @since 0.1.0
 */
public interface FastPath {

	/**
	 * Tell whether a key was processed before.
	 * @param request the claim request, never {@code null}
	 * @return {@link FastPathAnswer.Known} with what was stored for the key, {@link FastPathAnswer#UNKNOWN}, or
	 * {@link FastPathAnswer.Failed} when the store could not answer in time; never {@code null}
	 */
	FastPathAnswer knows(ClaimRequest request);

	/**
	 * Tell for several keys whether they were processed before, in as few round trips as the store allows (one
	 * {@code MGET} for Redis). The default asks one by one.
	 * @param requests the claim requests, never {@code null}
	 * @return one answer per request, in the same order; a failure of the whole lookup is one
	 * {@link FastPathAnswer.Failed} per request
	 */
	default List<FastPathAnswer> knowAll(List<ClaimRequest> requests) {
		List<FastPathAnswer> answers = new ArrayList<>(requests.size());
		for (ClaimRequest request : requests) {
			answers.add(knows(request));
		}
		return answers;
	}

	/**
	 * Remember keys whose claims the database committed as SUCCEEDED. Called after the commit, on the thread that
	 * committed; a failure loses nothing (a key not remembered costs one database claim later).
	 * @param claims the committed claims, never {@code null}
	 * @return {@code null} when they were stored, else the failure (never thrown)
	 */
	@Nullable Exception remember(List<RememberedClaim> claims);

}
