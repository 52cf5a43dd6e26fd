package dev.idempotent.claim;

import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The claim the current thread's work runs under, e.g. to pass the idempotency key to a remote API as its
 * {@code Idempotency-Key}:
 * <pre class="code">
 * gateway.charge(order, IdempotencyContext.currentKey());
 * </pre>
 * Bound by the executors for the duration of the work only; thread-confined.
 *
 * @since 0.1.0
 */
public final class IdempotencyContext {

	private static final ThreadLocal<ClaimRequest> current = new ThreadLocal<>();

	private IdempotencyContext() {
	}

	/**
	 * Return the claim the current work runs under.
	 * @return the request, or empty outside claimed work
	 */
	public static Optional<ClaimRequest> current() {
		return Optional.ofNullable(current.get());
	}

	/**
	 * Return the idempotency key of the current work.
	 * @return the key, never {@code null}
	 * @throws IllegalStateException if called outside claimed work
	 */
	public static String currentKey() {
		ClaimRequest request = current.get();
		if (request == null) {
			throw new IllegalStateException("No idempotency key: not called from work run under a claim");
		}
		return request.key();
	}

	/**
	 * Run work with a claim bound as the current one ({@link #current()}), for a caller that runs the work of several
	 * claims in one transaction (group commit), one claim at a time; the claim bound before is bound again after.
	 * @param request the claim the work runs under, never {@code null}
	 * @param work the work, never {@code null}
	 * @param <T> the work's result type
	 * @return what the work returned
	 * @throws Throwable whatever the work threw
	 * @since 0.1.0
	 */
	public static <T extends @Nullable Object> T runBound(ClaimRequest request, ClaimedWork<T> work) throws Throwable {
		ClaimRequest previous = current.get();
		current.set(request);
		try {
			return work.run();
		}
		finally {
			if (previous != null) {
				current.set(previous);
			}
			else {
				current.remove();
			}
		}
	}

}
