package dev.idempotent.jdbc;

import dev.idempotent.testsupport.GaleraCluster;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup check of a Galera node's driver settings: bulk INSERTs through mariadb-java-client are named with the
 * settings that turn them off; a Galera node without them, or a server that is no Galera node, passes.
 */
class GaleraDriverCheckTest {

	@Test
	void aGaleraNodeThroughMariadbJavaClientWithItsDefaultSettingsIsNamedWithTheFix() {
		GaleraCluster cluster = GaleraCluster.shared();

		String problem = new GaleraDriverCheck(cluster.dataSource(0, ""), SqlDialect.MARIADB).problem();

		assertThat(problem).contains("wsrep_on=ON", "useBulkStmtsForInserts=true",
				"useBulkStmts=false&useBulkStmtsForInserts=false");
	}

	@Test
	void aGaleraNodeWithoutBulkInsertsPasses() {
		GaleraCluster cluster = GaleraCluster.shared();

		assertThat(new GaleraDriverCheck(cluster.dataSource(0, "useBulkStmts=false&useBulkStmtsForInserts=false"),
				SqlDialect.MARIADB).problem()).isNull();
		assertThat(new GaleraDriverCheck(cluster.dataSource(0, "useBulkStmtsForInserts=false"), SqlDialect.MARIADB)
			.problem()).isNull();
	}

	@Test
	void aServerThatIsNoGaleraNodePasses() {
		assertThat(new GaleraDriverCheck(TestDatabases.pool(MariaDbJavaClientTest.mariadbJavaClient(), null),
				SqlDialect.MARIADB).problem()).isNull();
		assertThat(new GaleraDriverCheck(TestDatabases.mariadb(), SqlDialect.MARIADB).problem()).isNull();
		assertThat(new GaleraDriverCheck(TestDatabases.h2(), SqlDialect.H2).problem()).isNull();
	}

}
