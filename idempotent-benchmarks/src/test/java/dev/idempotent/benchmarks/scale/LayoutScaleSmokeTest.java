package dev.idempotent.benchmarks.scale;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The layout comparison at a smoke size on both databases, so that CI keeps it working: a hit looks up an existing
 * key by the digest Java computes, so a digest the fill computed differently in SQL fails the run. Speed is not
 * asserted here.
 */
class LayoutScaleSmokeTest {

	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "postgresql" })
	void bothLayoutsFillAndMeasure(String db) {
		assertThatNoException()
			.isThrownBy(() -> LayoutScale.main(new String[] { "--db=" + db, "--size=20000", "--keys=uuid" }));
	}

}
