package dev.idempotent.benchmarks;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark at a smoke size, so that CI keeps it working: every variant runs, and this library's variants
 * let no duplicate take effect and lose no order. Speed is not asserted here (docs/benchmarks.md has the numbers).
 */
class BenchmarkSmokeTest {

	@Test
	void everyVariantRunsAndTheLibrarysLetNoDuplicateThrough(@TempDir Path directory) throws Exception {
		String report = Benchmark.run(Benchmark.Settings.parse("--records=300", "--warmup=0", "--rounds=1", "--duplicates=0.1",
				"--output=" + directory.resolve("report.md")));

		List<String> rows = report.lines().filter((line) -> line.startsWith("| ") && !line.startsWith("| variant")).toList();
		assertThat(rows).hasSize(Variant.values().length);
		for (Variant variant : Variant.values()) {
			String row = rows.stream().filter((line) -> line.startsWith("| " + variant.title)).findFirst().orElseThrow();
			String[] cells = row.split("\\|");
			if (variant.library || variant == Variant.PLAIN_BATCH_500_HAND_CLAIM) {
				assertThat(cells[9].trim()).as("duplicates that took effect, %s", variant).isEqualTo("0");
			}
			assertThat(cells[10].trim()).as("orders missing, %s", variant).isEqualTo("0");
		}
	}

}
