package dev.idempotent.benchmarks;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Markdown table of a run: per variant, the round with the median records/s (its latencies and heap) and the
 * range over the rounds; duplicates and missing orders are the worst round's.
 */
final class Report {

	private Report() {
	}

	static String markdown(Benchmark.Settings settings, Map<Variant, List<Benchmark.Result>> results) {
		double ceiling = (results.containsKey(Variant.PLAIN)) ? median(results.get(Variant.PLAIN)).recordsPerSecond()
				: Double.NaN;
		StringBuilder table = new StringBuilder();
		table.append(String.format(Locale.ROOT, "%d orders, median of %d rounds (after a warm-up run of %d orders per"
				+ " variant), %.0f%% re-sent at once on another partition, %d partitions, %d consumer threads, database"
				+ " %s%n%n", settings.records(), settings.rounds(), settings.warmup(), settings.duplicates() * 100,
				settings.partitions(), settings.concurrency(), settings.dbUrl()));
		table.append("| variant | records/s | × variant 1 | range records/s | statements/record | commits/record"
				+ " | check p50 ms | check p99 ms | duplicates that took effect | orders missing | heap after (MB)"
				+ " | CPU µs/record: consumer threads | other Java threads | GC, JIT | database | total |\n"
				+ "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		results.forEach((variant, rounds) -> {
			Benchmark.Result median = median(rounds);
			boolean checks = variant != Variant.PLAIN;
			table.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %,.0f–%,.0f | %.2f | %.3f | %s | %s | %d | %d | %d | %s |%n",
					variant.title, median.recordsPerSecond(), median.recordsPerSecond() / ceiling,
					rounds.stream().mapToDouble(Benchmark.Result::recordsPerSecond).min().orElse(0),
					rounds.stream().mapToDouble(Benchmark.Result::recordsPerSecond).max().orElse(0),
					median.statementsPerRecord(), median.commitsPerRecord(),
					checks ? millis(median.p50()) : "–", checks ? millis(median.p99()) : "–",
					rounds.stream().mapToLong(Benchmark.Result::duplicatesTakenEffect).max().orElse(0),
					rounds.stream().mapToLong(Benchmark.Result::missing).max().orElse(0), median.heapMb(),
					median.cpu().perRecord(median.records())));
		});
		table.append(ratio(results, Variant.IDEMPOTENT_GROUP_COMMIT, Variant.PLAIN,
				"group commit (2b) × plain single-record listener (1), target ≥ 8"));
		table.append(ratio(results, Variant.IDEMPOTENT_GROUP_COMMIT, Variant.IDEMPOTENT,
				"group commit (2b) × @IdempotentListener single records (2)"));
		table.append(ratio(results, Variant.IDEMPOTENT_GROUP_COMMIT, Variant.PLAIN_BATCH_500_UNBATCHED,
				"group commit (2b) × its ceiling, the plain batch listener writing record by record (1c), target ≥ 0.9"));
		table.append(ratio(results, Variant.IDEMPOTENT_GROUP_COMMIT, Variant.PLAIN_BATCH_500_HAND_CLAIM,
				"group commit (2b) × the same with a claim written by hand (1d)"));
		table.append(ratio(results, Variant.IDEMPOTENT_BATCH_500, Variant.PLAIN_BATCH_500,
				"batches of 500 (3b) × plain batch listener (1b), target ≥ 0.85"));
		return table.toString();
	}

	/** A line with the ratio of two variants' median records/s, the same round's ranges, if both ran. */
	private static String ratio(Map<Variant, List<Benchmark.Result>> results, Variant variant, Variant base,
			String what) {
		if (!results.containsKey(variant) || !results.containsKey(base)) {
			return "";
		}
		List<Benchmark.Result> of = results.get(variant);
		List<Benchmark.Result> against = results.get(base);
		double min = Double.MAX_VALUE;
		double max = 0;
		for (int round = 0; round < Math.min(of.size(), against.size()); round++) {
			double r = of.get(round).recordsPerSecond() / against.get(round).recordsPerSecond();
			min = Math.min(min, r);
			max = Math.max(max, r);
		}
		return String.format(Locale.ROOT, "%n%s: %.2f (medians), %.2f–%.2f (same round)%n", what,
				median(of).recordsPerSecond() / median(against).recordsPerSecond(), min, max);
	}

	private static Benchmark.Result median(List<Benchmark.Result> rounds) {
		List<Benchmark.Result> sorted = rounds.stream()
			.sorted(Comparator.comparingDouble(Benchmark.Result::recordsPerSecond))
			.toList();
		return sorted.get(sorted.size() / 2);
	}

	private static String millis(Duration duration) {
		return String.format(Locale.ROOT, "%.2f", duration.toNanos() / 1e6);
	}

}
