package dev.idempotent.conformance;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built kit jar against MariaDB at 127.0.0.1:3306 (see {@link TestDatabases}) through mysql-connector-j, the
 * quick subset with the error-code and crash checks (the whole contract runs against MariaDB in idempotent-core's
 * own suite, and through the kit against H2); nothing of the run is left behind.
 */
class MariaDbConformanceIT {

	@Test
	void theQuickChecksPassWithMariaDbsErrorCodesAndTheCrashChecksAndLeaveNoTableBehind() throws Exception {
		String prefix = KitProcess.uniquePrefix();

		KitProcess.Result result = KitProcess.run(TestDatabases.MARIADB, "--table-prefix=" + prefix, "--checks=quick");

		assertThat(result.output()).contains("dialect: mariadb (detected)")
			.contains(Report.CONFORMANT);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.lines("[FAIL]")).isEmpty();
		assertThat(result.lines("[SKIPPED]")).isEmpty();
		assertThat(result.lines("[PASS]")).hasSizeBetween(15, 30)
			.anyMatch((line) -> line.contains("aHolderThatRollsBackLetsExactlyOneOfTheWaitingClaimsWin"))
			.anyMatch((line) -> line.contains("[2] isolation = REPEATABLE_READ"))
			.anyMatch((line) -> line.contains("rowsLockedElsewhereAreSkippedNotWaitedForAndTakenByALaterRun"));
		assertThat(result.output())
			.containsPattern("duplicate: SQLState 23000, vendor code 1062")
			.containsPattern("deadlock: \\[SQLState 40001, vendor code 1213")
			.containsPattern("lock-wait timeout: SQLState (HY000|40001), vendor code 1205")
			.contains("restart: OUTCOME hit; business rows: 1")
			.contains("restart: OUTCOME processed; business rows: 1");
		assertThat(KitTables.tablesStartingWith(TestDatabases.mariadb(), prefix)).isEmpty();
	}

}
