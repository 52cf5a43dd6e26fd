package dev.idempotent.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The Markdown table of a run. */
final class Report {

	private Report() {
	}

	static String markdown(Benchmark.Settings settings, List<Benchmark.Result> results) {
		double ceiling = results.stream()
			.filter((result) -> result.variant() == Variant.PLAIN)
			.mapToDouble(Benchmark.Result::recordsPerSecond)
			.findFirst()
			.orElse(Double.NaN);
		StringBuilder table = new StringBuilder();
		table.append(String.format(Locale.ROOT, "%d orders, %.0f%% re-sent at once on another partition, %d partitions,"
				+ " %d consumer threads, database %s%n%n", settings.records(), settings.duplicates() * 100,
				settings.partitions(), settings.concurrency(), settings.dbUrl()));
		table.append("| variant | records/s | × variant 1 | check p50 ms | check p99 ms | duplicates that took effect"
				+ " | orders missing | heap after (MB) |\n|---|---|---|---|---|---|---|---|\n");
		for (Benchmark.Result result : results) {
			boolean checks = result.variant() != Variant.PLAIN;
			table.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %s | %s | %d | %d | %d |%n",
					result.variant().title, result.recordsPerSecond(), result.recordsPerSecond() / ceiling,
					checks ? millis(result.p50()) : "–", checks ? millis(result.p99()) : "–",
					result.duplicatesTakenEffect(), result.missing(), result.heapMb()));
		}
		return table.toString();
	}

	private static String millis(Duration duration) {
		return String.format(Locale.ROOT, "%.2f", duration.toNanos() / 1e6);
	}

}
