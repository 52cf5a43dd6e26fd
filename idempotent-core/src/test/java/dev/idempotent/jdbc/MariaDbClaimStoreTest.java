package dev.idempotent.jdbc;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/** The claim store contract on MariaDB at 127.0.0.1:3306 (see {@link TestDatabases}). */
class MariaDbClaimStoreTest extends AbstractClaimStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.mariadb();
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.MARIADB;
	}

	@Override
	protected void awaitLockWait(JdbcTemplate jdbc, Thread waiter) {
		awaitCondition(jdbc, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'");
	}

}
