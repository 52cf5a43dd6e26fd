package dev.idempotent.actuate;

import java.util.Map;
import java.util.TreeMap;

import dev.idempotent.metrics.HitRatioMeters;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Reads the claim meters of a {@link MeterRegistry} per scope: the {@value MicrometerClaimListener#CLAIMS}
 * counters by outcome (summed over any other tags, such as common tags) and, when some component registers it,
 * the {@value HitRatioMeters#HIT_RATIO} gauge. Thread-safe (the registry is).
 */
final class ClaimMeterReader {

	private final @Nullable MeterRegistry registry;

	/**
	 * Create a reader.
	 * @param registry the registry, or {@code null} when the application has none (every read is then empty)
	 */
	ClaimMeterReader(@Nullable MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Read every scope that has claim counters, sorted by scope.
	 * @return the statistics by scope, never {@code null}
	 */
	Map<String, IdempotencyEndpoint.ScopeStatistics> read() {
		if (this.registry == null) {
			return Map.of();
		}
		Map<String, Counts> counts = new TreeMap<>();
		for (Counter counter : this.registry.find(MicrometerClaimListener.CLAIMS).counters()) {
			String scope = counter.getId().getTag("scope");
			String outcome = counter.getId().getTag("outcome");
			if (scope != null && outcome != null) {
				counts.computeIfAbsent(scope, (s) -> new Counts()).add(outcome, (long) counter.count());
			}
		}
		Map<String, IdempotencyEndpoint.ScopeStatistics> statistics = new TreeMap<>();
		counts.forEach((scope, count) -> statistics.put(scope, count.statistics(recentHitRatio(scope))));
		return statistics;
	}

	private @Nullable Double recentHitRatio(String scope) {
		Gauge gauge = (this.registry != null) ? this.registry.find(HitRatioMeters.HIT_RATIO).tag("scope", scope).gauge() : null;
		if (gauge == null || Double.isNaN(gauge.value())) {
			return null;
		}
		return gauge.value();
	}

	/** Counts of one scope by outcome. */
	private static final class Counts {

		private long claimed;

		private long reclaimed;

		private long hit;

		private long rejected;

		void add(String outcome, long count) {
			switch (outcome) {
				case MicrometerClaimListener.CLAIMED -> this.claimed += count;
				case MicrometerClaimListener.RECLAIMED -> this.reclaimed += count;
				case MicrometerClaimListener.HIT -> this.hit += count;
				case MicrometerClaimListener.REJECTED -> this.rejected += count;
				default -> {
					// an outcome this version does not know: not part of the ratio
				}
			}
		}

		IdempotencyEndpoint.ScopeStatistics statistics(@Nullable Double recentHitRatio) {
			long processed = this.claimed + this.reclaimed + this.hit;
			Double hitRatio = (processed > 0) ? (double) this.hit / processed : null;
			return new IdempotencyEndpoint.ScopeStatistics(this.claimed, this.reclaimed, this.hit, this.rejected,
					hitRatio, recentHitRatio);
		}

	}

}
