package dev.idempotent.conformance;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built kit jar against MariaDB at 127.0.0.1:3306 (see {@link TestDatabases}), every check: the whole
 * claim-store and retention contracts, the error codes and the crash checks; nothing of the run is left behind.
 */
class MariaDbConformanceIT {

	@Test
	void everyCheckPassesAndTheKitLeavesNoTableBehind() throws Exception {
		String prefix = KitProcess.uniquePrefix();

		KitProcess.Result result = KitProcess.run(TestDatabases.MARIADB, "--table-prefix=" + prefix);

		assertThat(result.output()).contains("dialect: mariadb (detected)")
			.contains(Report.CONFORMANT);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.lines("[FAIL]")).isEmpty();
		assertThat(result.lines("[SKIPPED]")).isEmpty();
		assertThat(result.lines("[PASS]")).as("the whole contract ran").hasSizeGreaterThan(60);
		assertThat(result.output())
			.containsPattern("duplicate: SQLState 23000, vendor code 1062")
			.containsPattern("deadlock: \\[SQLState 40001, vendor code 1213")
			.containsPattern("lock-wait timeout: SQLState (HY000|40001), vendor code 1205")
			.contains("restart: OUTCOME hit; business rows: 1")
			.contains("restart: OUTCOME processed; business rows: 1");
		assertThat(KitTables.tablesStartingWith(TestDatabases.mariadb(), prefix)).isEmpty();
	}

}
