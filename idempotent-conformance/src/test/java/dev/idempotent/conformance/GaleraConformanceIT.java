package dev.idempotent.conformance;

import dev.idempotent.testsupport.GaleraCluster;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built kit jar against a three-node MariaDB Galera cluster the test starts on loopback ({@link GaleraCluster}),
 * given the other two nodes with {@code --node-url}: the quick checks on the first node, and the cross-node checks
 * (a key claimed on one node is a hit on the others, the same keys claimed on two nodes at once take effect once, a
 * stored offset moves on any node only from the value it holds).
 */
class GaleraConformanceIT {

	@Test
	void theCrossNodeChecksPassOnAThreeNodeGaleraCluster() throws Exception {
		GaleraCluster cluster = GaleraCluster.shared();
		String prefix = KitProcess.uniquePrefix();
		String options = "?useBulkStmts=false&useBulkStmtsForInserts=false";

		KitProcess.Result result = KitProcess.run(new TestDatabases.Connection(cluster.url(0) + options, "root", ""),
				"--table-prefix=" + prefix, "--checks=quick", "--node-url=" + cluster.url(1) + options,
				"--node-url=" + cluster.url(2) + options);

		assertThat(result.output()).contains("other nodes: " + cluster.url(1)).contains(Report.CONFORMANT);
		assertThat(result.exitCode()).as(result.output()).isZero();
		assertThat(result.lines("[FAIL]")).isEmpty();
		assertThat(result.lines("[PASS]"))
			.anyMatch((line) -> line.contains("aKeyClaimedOnOneNodeIsAHitOnEveryOther"))
			.anyMatch((line) -> line.contains("concurrentClaimsOfTheSameKeysOnTwoNodesTakeEffectOnce"))
			.anyMatch((line) -> line.contains("aStoredOffsetMovesOnAnyNodeOnlyFromTheValueThatNodeExpects"));
	}

}
