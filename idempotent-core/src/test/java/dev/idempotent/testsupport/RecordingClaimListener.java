package dev.idempotent.testsupport;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.metrics.ClaimListener;

/** Counts claim outcomes. */
public final class RecordingClaimListener implements ClaimListener {

	public final AtomicInteger claimed = new AtomicInteger();

	public final AtomicInteger reclaimed = new AtomicInteger();

	public final AtomicInteger hits = new AtomicInteger();

	public final AtomicInteger rejected = new AtomicInteger();

	public final AtomicInteger conflicts = new AtomicInteger();

	@Override
	public void onClaimed(ClaimRequest request, boolean reclaim, Duration latency) {
		(reclaim ? this.reclaimed : this.claimed).incrementAndGet();
	}

	@Override
	public void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		this.hits.incrementAndGet();
	}

	@Override
	public void onConflict(ClaimRequest request, ClaimResult.Hit hit) {
		this.conflicts.incrementAndGet();
	}

	@Override
	public void onRejected(String scope, InvalidIdempotencyKeyException error) {
		this.rejected.incrementAndGet();
	}

}
