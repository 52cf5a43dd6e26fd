package dev.idempotent.benchmarks.floor;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The database floor at a smoke size on both databases, so that CI keeps it working; each shape checks its own
 * outcome (every new key inserted, every hit found) and fails the run otherwise. Speed is not asserted here.
 */
class DatabaseFloorSmokeTest {

	@ParameterizedTest
	@ValueSource(strings = { "jdbc:mysql://127.0.0.1:3306/test?rewriteBatchedStatements=true",
			"jdbc:postgresql://127.0.0.1:5432/test?reWriteBatchedInserts=true" })
	void everyShapeRunsOnBothLayouts(String url) {
		assertThatNoException().isThrownBy(() -> DatabaseFloor.main(new String[] { "--db-url=" + url, "--records=400",
				"--rounds=1", "--group=50", "--layouts=text,digest" }));
	}

}
