package dev.idempotent.metrics;

import java.time.Duration;
import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.key.InvalidIdempotencyKeyException;

/**
 * Calls several {@link ClaimListener}s in order. Thread-safe if its delegates are.
 *
 * @since 0.1.0
 */
public final class CompositeClaimListener implements ClaimListener {

	private final List<ClaimListener> delegates;

	/**
	 * Create a composite.
	 * @param delegates the listeners to call, in order; copied
	 */
	public CompositeClaimListener(List<? extends ClaimListener> delegates) {
		this.delegates = List.copyOf(delegates);
	}

	/**
	 * Return one listener for a list: {@link ClaimListener#NO_OP} for none, the listener itself for one.
	 * @param listeners the listeners, never {@code null}
	 * @return a listener that calls them all
	 */
	public static ClaimListener of(List<? extends ClaimListener> listeners) {
		if (listeners.isEmpty()) {
			return NO_OP;
		}
		return (listeners.size() == 1) ? listeners.get(0) : new CompositeClaimListener(listeners);
	}

	@Override
	public void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
		this.delegates.forEach((listener) -> listener.onClaimed(request, reclaimed, latency));
	}

	@Override
	public void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		this.delegates.forEach((listener) -> listener.onHit(request, hit, latency));
	}

	@Override
	public void onFastPathHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		this.delegates.forEach((listener) -> listener.onFastPathHit(request, hit, latency));
	}

	@Override
	public void onConflict(ClaimRequest request, ClaimResult.Hit hit) {
		this.delegates.forEach((listener) -> listener.onConflict(request, hit));
	}

	@Override
	public void onRejected(String scope, InvalidIdempotencyKeyException error) {
		this.delegates.forEach((listener) -> listener.onRejected(scope, error));
	}

}
