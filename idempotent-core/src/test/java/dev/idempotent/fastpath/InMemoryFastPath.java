package dev.idempotent.fastpath;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import org.jspecify.annotations.Nullable;

/** A fast path in a map, which can be told to fail; counts its calls. */
final class InMemoryFastPath implements FastPath {

	final Map<List<String>, RememberedClaim> keys = new ConcurrentHashMap<>();

	final List<RememberedClaim> remembered = new CopyOnWriteArrayList<>();

	final AtomicInteger lookups = new AtomicInteger();

	/** Calls of {@link #knowAll} (a batch or a prefetch), each one round trip for a real store. */
	final AtomicInteger roundTrips = new AtomicInteger();

	volatile boolean failing;

	@Override
	public FastPathAnswer knows(ClaimRequest request) {
		this.lookups.incrementAndGet();
		if (this.failing) {
			return new FastPathAnswer.Failed(new IllegalStateException("down"));
		}
		RememberedClaim claim = this.keys.get(List.of(request.scope(), request.key()));
		return (claim != null) ? new FastPathAnswer.Known(new ClaimResult.Hit(ClaimStatus.SUCCEEDED,
				claim.processedAt(), claim.request().fingerprint(), claim.request().source())) : FastPathAnswer.UNKNOWN;
	}

	@Override
	public List<FastPathAnswer> knowAll(List<ClaimRequest> requests) {
		this.roundTrips.incrementAndGet();
		return FastPath.super.knowAll(requests);
	}

	@Override
	public @Nullable Exception remember(List<RememberedClaim> claims) {
		if (this.failing) {
			return new IllegalStateException("down");
		}
		for (RememberedClaim claim : claims) {
			this.keys.put(List.of(claim.request().scope(), claim.request().key()), claim);
			this.remembered.add(claim);
		}
		return null;
	}

	boolean knowsKey(String scope, String key) {
		return this.keys.containsKey(List.of(scope, key));
	}

}
