package dev.idempotent.jdbc;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/** The claim store contract on PostgreSQL at 127.0.0.1:5432 (see {@link TestDatabases}). */
class PostgreSqlClaimStoreTest extends AbstractClaimStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.postgresql();
	}

	@Override
	protected TestDatabases.Connection connection() {
		return TestDatabases.POSTGRESQL;
	}

	@Override
	protected String lockTimeoutSql() {
		return "SET lock_timeout = '1s'";
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.POSTGRESQL;
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		awaitCount(jdbc, "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", waiters.size());
	}

}
