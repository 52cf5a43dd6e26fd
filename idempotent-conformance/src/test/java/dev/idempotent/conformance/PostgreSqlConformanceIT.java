package dev.idempotent.conformance;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built kit jar against PostgreSQL at 127.0.0.1:5432 (see {@link TestDatabases}), the quick subset (the whole
 * contract runs against PostgreSQL in idempotent-core's own suite, and through the kit against MariaDB).
 */
class PostgreSqlConformanceIT {

	@Test
	void theQuickChecksPassWithPostgreSqlsErrorCodesAndTheCrashChecks() throws Exception {
		String prefix = KitProcess.uniquePrefix();

		KitProcess.Result result = KitProcess.run(TestDatabases.POSTGRESQL, "--table-prefix=" + prefix, "--checks=quick");

		assertThat(result.output()).contains("dialect: postgresql (detected)").contains(Report.CONFORMANT);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.lines("[FAIL]")).isEmpty();
		assertThat(result.lines("[PASS]")).hasSizeBetween(15, 30)
			.anyMatch((line) -> line.contains("aListenerTransactionThatAlreadyReadRowsStillRecognisesAHit [[1] isolation"
					+ " = READ_COMMITTED]"))
			.anyMatch((line) -> line.contains("[2] isolation = REPEATABLE_READ"))
			.anyMatch((line) -> line.contains("archivesOnlySucceededRowsOlderThanThePeriodWhateverTheTimeZones"));
		assertThat(result.output()).contains("duplicate: SQLState 23505")
			.contains("deadlock: [SQLState 40P01")
			.contains("lock-wait timeout: SQLState 55P03")
			.contains("restart: OUTCOME hit; business rows: 1")
			.contains("restart: OUTCOME processed; business rows: 1");
		assertThat(KitTables.tablesStartingWith(TestDatabases.postgresql(), prefix)).isEmpty();
	}

}
