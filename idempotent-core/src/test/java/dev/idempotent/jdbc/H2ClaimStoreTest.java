package dev.idempotent.jdbc;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.awaitility.Awaitility.await;

/** The claim store contract on H2 in memory, MySQL mode. */
class H2ClaimStoreTest extends AbstractClaimStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.h2();
	}

	@Override
	protected int keyColumnSize() {
		return 256;
	}

	@Override
	protected TestDatabases.Connection connection() {
		return TestDatabases.H2;
	}

	@Override
	protected String lockTimeoutSql() {
		return "SET LOCK_TIMEOUT 1000";
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.H2;
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		// embedded H2 runs the INSERT on the caller's thread and retries it while the row is locked
		await().atMost(Duration.ofSeconds(20)).until(() -> waiters.stream().allMatch((waiter) -> Arrays
			.stream(waiter.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals("org.h2.mvstore.db.MVSecondaryIndex"))));
	}

}
