package dev.idempotent.retention;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

/**
 * The retention job on MySQL 8 in a container. Skipped, with Testcontainers' reason, where no Docker engine runs.
 */
@Testcontainers(disabledWithoutDocker = true)
class MySqlRetentionJobTest extends AbstractRetentionJobContractTest {

	@Container
	static final MySQLContainer mysql = new MySQLContainer("mysql:8.4");

	private static DataSource dataSource;

	@Override
	protected DataSource dataSource() {
		if (dataSource == null) {
			dataSource = TestDatabases.pool(new TestDatabases.Connection(mysql.getJdbcUrl(), "root", mysql.getPassword()),
					"SET time_zone = '+05:00'");
		}
		return dataSource;
	}

	@AfterAll
	static void closePool() throws Exception {
		if (dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
		dataSource = null;
	}

}
