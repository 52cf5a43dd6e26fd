package dev.idempotent.conformance.checks;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import dev.idempotent.jdbc.SqlDialect;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Waits until claiming threads wait for a row lock another transaction holds, as the database shows it. A database
 * that shows no lock waits where its dialect's family does (a compatible database without InnoDB's or PostgreSQL's
 * views, or a user without the privilege to read them) gets a fixed two seconds instead.
 */
final class LockWaits {

	static final Duration UNOBSERVABLE_WAIT = Duration.ofSeconds(2);

	private LockWaits() {
	}

	static void await(SqlDialect dialect, JdbcTemplate jdbc, List<Thread> waiters) {
		switch (dialect) {
			case MYSQL, MARIADB -> awaitCount(jdbc,
					"SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", waiters.size());
			case POSTGRESQL -> awaitCount(jdbc,
					"SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", waiters.size());
			// embedded H2 runs the INSERT on the caller's thread and retries it while the row is locked
			case H2 -> org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> waiters.stream()
				.allMatch((waiter) -> Arrays.stream(waiter.getStackTrace())
					.anyMatch((frame) -> frame.getClassName().startsWith("org.h2."))));
		}
	}

	private static void awaitCount(JdbcTemplate jdbc, String sql, int atLeast) {
		try {
			jdbc.queryForObject(sql, Integer.class);
		}
		catch (DataAccessException ex) {
			// this database does not expose lock waits (no INNODB_TRX / pg_stat_activity, or no privilege on it):
			// there is no condition to wait on, so the waiters get a fixed time to reach the lock (the report's
			// evidence gives the time each wait took)
			sleep(UNOBSERVABLE_WAIT);
			return;
		}
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
			.until(() -> jdbc.queryForObject(sql, Integer.class), (n) -> n != null && n >= atLeast);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
