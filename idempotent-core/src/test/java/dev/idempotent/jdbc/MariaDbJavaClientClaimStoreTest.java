package dev.idempotent.jdbc;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The claim store contract on MariaDB through mariadb-java-client instead of mysql-connector-j: duplicates, other
 * constraints, deadlocks and lock-wait timeouts as that driver reports them (see also {@link MariaDbJavaClientTest}).
 */
class MariaDbJavaClientClaimStoreTest extends AbstractClaimStoreContractTest {

	private static DataSource dataSource;

	@Override
	protected DataSource dataSource() {
		if (dataSource == null) {
			dataSource = TestDatabases.pool(connection(), "SET time_zone = '+05:00', lc_messages = 'de_DE'");
		}
		return dataSource;
	}

	@Override
	protected TestDatabases.Connection connection() {
		return MariaDbJavaClientTest.mariadbJavaClient();
	}

	@Override
	protected String lockTimeoutSql() {
		return "SET innodb_lock_wait_timeout = 1";
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.MARIADB;
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		awaitCount(jdbc, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", waiters.size());
	}

	@AfterAll
	static void closePool() throws Exception {
		if (dataSource instanceof AutoCloseable closeable) {
			closeable.close();
		}
		dataSource = null;
	}

}
