package dev.idempotent.benchmarks.scale;

import java.util.Arrays;

/** Latencies in nanoseconds, recorded by one thread; percentiles in milliseconds. Not thread-safe. */
final class Latencies {

	private long[] values = new long[1024];

	private int size;

	void add(long nanos) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = nanos;
	}

	void addAll(Latencies other) {
		for (int i = 0; i < other.size; i++) {
			add(other.values[i]);
		}
	}

	int count() {
		return this.size;
	}

	/** The p-th percentile (0 to 100) in milliseconds; NaN when empty. */
	double percentileMillis(double p) {
		if (this.size == 0) {
			return Double.NaN;
		}
		long[] sorted = Arrays.copyOf(this.values, this.size);
		Arrays.sort(sorted);
		int index = (int) Math.min(this.size - 1, Math.max(0, Math.ceil(p / 100.0 * this.size) - 1));
		return sorted[index] / 1_000_000.0;
	}

}
