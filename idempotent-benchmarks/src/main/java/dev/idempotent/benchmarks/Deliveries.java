package dev.idempotent.benchmarks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.metrics.ClaimListener;

/**
 * Counts records delivered to the variant under test and when the first and last arrived. The idempotent
 * variants count through the library's {@link ClaimListener} (a hit never reaches the listener method); the
 * others count in their listener.
 */
public class Deliveries implements ClaimListener {

	private final AtomicLong count = new AtomicLong();

	private final AtomicLong first = new AtomicLong();

	private final AtomicLong last = new AtomicLong();

	/** Count delivered records; {@code 0} marks the end of the run (every offset committed). */
	public void delivered(int records) {
		long now = System.nanoTime();
		this.first.compareAndSet(0, now);
		this.last.set(now);
		this.count.addAndGet(records);
	}

	@Override
	public void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
		delivered(1);
	}

	@Override
	public void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		delivered(1);
	}

	public long count() {
		return this.count.get();
	}

	/** The time from the first delivery to the last mark: the end of the run once it was marked. */
	public Duration elapsed() {
		return Duration.ofNanos(Math.max(1, this.last.get() - this.first.get()));
	}

}
