package dev.idempotent.conformance;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built kit jar against H2 in memory, MySQL mode, every check: the whole claim-store and retention contracts
 * and the error codes. The crash checks cannot reach an in-memory database from a child JVM: they are reported as
 * skipped, with the reason, and the verdict says so; so is the time-partitioned archive check (no such DDL for H2).
 */
class H2ConformanceIT {

	@Test
	void theWholeContractPassesAndTheCrashChecksAreReportedSkipped() throws Exception {
		TestDatabases.Connection h2 = new TestDatabases.Connection("jdbc:h2:mem:kit;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");

		KitProcess.Result result = KitProcess.run(h2);

		assertThat(result.output()).contains("dialect: h2 (detected)").contains(Report.CONFORMANT)
			.contains("see the skipped checks");
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.lines("[FAIL]")).isEmpty();
		assertThat(result.lines("[PASS]")).as("the whole contract ran").hasSizeGreaterThan(60);
		// the crash checks need a database a second JVM can reach; H2 has no time-partitioned archive DDL
		assertThat(result.lines("[SKIPPED]")).hasSize(3)
			.allMatch((line) -> line.contains("Consumer") || line.contains("TimePartitionedArchive"));
		assertThat(result.output()).contains("an in-memory H2 database cannot be reached from a child JVM")
			.contains("duplicate: SQLState 23505, vendor code 23505")
			.contains("left of this run: 0; registry idemkit_registry dropped");
	}

}
