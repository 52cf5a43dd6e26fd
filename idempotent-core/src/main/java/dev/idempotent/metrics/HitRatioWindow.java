package dev.idempotent.metrics;

import java.time.Duration;
import java.time.Instant;

/**
 * Hits and claims of one scope over a sliding time window, kept in {@code buckets} equal time buckets: the window
 * covers the current bucket and the ones before it, so it slides by one bucket at a time (a sample leaves the window
 * between {@code window - window/buckets} and {@code window} after it was recorded). Memory and time per call are
 * constant (O(buckets) at most, when the window jumps). Callers pass the current time, which keeps this class pure
 * logic. Thread-safe (synchronized).
 *
 * @since 0.1.0
 */
public final class HitRatioWindow {

	private final long bucketMillis;

	private final long[] hits;

	private final long[] totals;

	private long currentBucket = Long.MIN_VALUE;

	private long hitSum;

	private long totalSum;

	/**
	 * Create an empty window.
	 * @param window the window's length, at least {@code buckets} milliseconds
	 * @param buckets how many buckets the window is cut into, 1 or more
	 * @throws IllegalArgumentException if the window is shorter than {@code buckets} milliseconds or
	 * {@code buckets} is less than 1
	 */
	public HitRatioWindow(Duration window, int buckets) {
		if (buckets < 1 || window.toMillis() < buckets) {
			throw new IllegalArgumentException("A hit-ratio window needs at least 1 bucket and 1 ms per bucket; got "
					+ window + " in " + buckets + " buckets");
		}
		this.bucketMillis = window.toMillis() / buckets;
		this.hits = new long[buckets];
		this.totals = new long[buckets];
	}

	/**
	 * Record one claim outcome.
	 * @param now the current time, never {@code null}
	 * @param hit whether it was an idempotent hit
	 */
	public synchronized void record(Instant now, boolean hit) {
		int index = advance(now);
		this.totals[index]++;
		this.totalSum++;
		if (hit) {
			this.hits[index]++;
			this.hitSum++;
		}
	}

	/**
	 * Return the share of hits among the outcomes in the window.
	 * @param now the current time, never {@code null}
	 * @return hits / (hits + claims), from 0 to 1; {@code NaN} when the window is empty
	 */
	public synchronized double ratio(Instant now) {
		advance(now);
		return (this.totalSum == 0) ? Double.NaN : (double) this.hitSum / this.totalSum;
	}

	/**
	 * Return how many outcomes the window holds.
	 * @param now the current time, never {@code null}
	 * @return the number of samples, 0 or more
	 */
	public synchronized long samples(Instant now) {
		advance(now);
		return this.totalSum;
	}

	/** Move the window to {@code now}'s bucket, emptying the buckets it leaves behind; return that bucket's index. */
	private int advance(Instant now) {
		long bucket = Math.floorDiv(now.toEpochMilli(), this.bucketMillis);
		if (bucket > this.currentBucket) {
			long stale = Math.min(bucket - this.currentBucket, this.hits.length);
			if (this.currentBucket == Long.MIN_VALUE) {
				stale = this.hits.length;
			}
			for (long b = bucket - stale + 1; b <= bucket; b++) {
				int index = index(b);
				this.hitSum -= this.hits[index];
				this.totalSum -= this.totals[index];
				this.hits[index] = 0;
				this.totals[index] = 0;
			}
			this.currentBucket = bucket;
		}
		// a clock that steps back records into the current bucket
		return index(this.currentBucket);
	}

	private int index(long bucket) {
		return (int) Math.floorMod(bucket, (long) this.hits.length);
	}

}
