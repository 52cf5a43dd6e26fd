package dev.idempotent.jdbc;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The claim store contract on MySQL 8 in a container. Skipped, with Testcontainers' reason, where no Docker
 * engine runs (as on the development machines, which test MariaDB and PostgreSQL locally instead).
 */
@Testcontainers(disabledWithoutDocker = true)
class MySqlClaimStoreTest extends AbstractClaimStoreContractTest {

	@Container
	static final MySQLContainer mysql = new MySQLContainer("mysql:8.4");

	private static DataSource dataSource;

	@Override
	protected DataSource dataSource() {
		if (dataSource == null) {
			dataSource = TestDatabases.pool(new TestDatabases.Connection(mysql.getJdbcUrl(), "root", mysql.getPassword()),
					"SET time_zone = '+05:00', lc_messages = 'de_DE'");
		}
		return dataSource;
	}

	@Override
	protected TestDatabases.Connection connection() {
		return new TestDatabases.Connection(mysql.getJdbcUrl(), "root", mysql.getPassword());
	}

	@Override
	protected String lockTimeoutSql() {
		return "SET innodb_lock_wait_timeout = 1";
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.MYSQL;
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		awaitCount(jdbc, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", waiters.size());
	}

	@AfterAll
	static void closePool() {
		if (dataSource instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}
		dataSource = null;
	}

}
