package dev.idempotent.claim;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.LogRecorder;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The check of a claim transaction before its commit, on MariaDB through mysql-connector-j: it runs after every other
 * step before the commit (writes made there are covered), a lock-wait timeout is no conflict (the transaction stays
 * open, the record fails), and a transaction ended unnoticed on every run fails the record instead of retrying forever.
 */
class ClaimTransactionCheckTest {

	private final DataSource dataSource = TestDatabases.mariadb();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

	private final String business = "business_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private TableName table;

	private TransactionalClaimExecutor executor;

	@BeforeEach
	void createTables() {
		this.table = TestDatabases.createClaimTable(this.dataSource, SqlDialect.MARIADB);
		this.jdbc.execute("CREATE TABLE " + this.business + " (id VARCHAR(64) PRIMARY KEY, n INT) ENGINE=InnoDB");
		this.jdbc.update("INSERT INTO " + this.business + " VALUES ('locked', 0)");
		this.executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(this.dataSource, this.table, SqlDialect.MARIADB, Clock.systemUTC()),
				new JdbcTransactionManager(this.dataSource), new RecordingClaimListener(), 3);
	}

	@AfterEach
	void dropTables() {
		TestDatabases.drop(this.dataSource, this.table.value());
		TestDatabases.drop(this.dataSource, this.business);
	}

	@Test
	void aTransactionEndedUnnoticedWhileTheCommitBeginsIsRunAgainNotCommittedWithoutItsClaim() throws Throwable {
		AtomicInteger runs = new AtomicInteger();

		ClaimOutcome<Integer> outcome = this.executor.executeInOwnTransaction(request("order-1"), () -> {
			int run = runs.incrementAndGet();
			this.jdbc.update("INSERT INTO " + this.business + " VALUES (?, 1)", "work-" + run);
			if (run == 1) {
				// as a MyBatis batch executor or a BEFORE_COMMIT event listener writing while the commit begins, on a
				// Galera node whose abort of the transaction the server answered with success: the transaction is gone
				// and the write lands in a new one
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
					@Override
					public void beforeCommit(boolean readOnly) {
						ClaimTransactionCheckTest.this.jdbc.execute("ROLLBACK");
						ClaimTransactionCheckTest.this.jdbc.update("INSERT INTO " + ClaimTransactionCheckTest.this.business
								+ " VALUES ('written-while-committing', 1)");
					}
				});
			}
			return run;
		});

		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>(2, false));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.value(), Integer.class)).isOne();
		assertThat(this.jdbc.queryForList("SELECT id FROM " + this.business + " ORDER BY id", String.class))
			.as("the second run's write; nothing of the first")
			.containsExactly("locked", "work-2");
	}

	@Test
	void aLockWaitTimeoutOfTheWorkIsNoConflictAndFailsTheRecordAfterOneRun() throws Exception {
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
			try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
				connection.setAutoCommit(false);
				statement.executeUpdate("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'locked'");
				held.countDown();
				done.await(60, TimeUnit.SECONDS);
				connection.rollback();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(held.await(20, TimeUnit.SECONDS)).isTrue();
		AtomicInteger runs = new AtomicInteger();
		try {
			assertThatThrownBy(() -> this.executor.executeInOwnTransaction(request("order-2"), () -> {
				runs.incrementAndGet();
				this.jdbc.execute("SET SESSION innodb_lock_wait_timeout = 1");
				return this.jdbc.update("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'locked'");
			})).isInstanceOf(DataAccessException.class)
				.isNotInstanceOf(TransientClaimException.class)
				.rootCause()
				.satisfies((cause) -> assertThat(((java.sql.SQLException) cause).getErrorCode()).isEqualTo(1205));
		}
		finally {
			done.countDown();
			holder.get(30, TimeUnit.SECONDS);
		}
		assertThat(runs).as("not retried as a conflict: the transaction stayed open").hasValue(1);
	}

	@Test
	void aTransactionTheWorkEndsOnEveryRunFailsTheRecordInsteadOfRetryingForever() {
		AtomicInteger runs = new AtomicInteger();

		try (LogRecorder log = LogRecorder.of(TransactionalClaimExecutor.class.getName())) {
			assertThatThrownBy(() -> this.executor.executeInOwnTransaction(request("order-3"), () -> {
				runs.incrementAndGet();
				// a stored procedure's exit handler that rolls back and does not signal, on every run
				this.jdbc.execute("ROLLBACK");
				return null;
			})).isInstanceOf(ClaimTransactionLostException.class)
				.hasMessageContaining("on each of 4 runs");
			assertThat(log.messages(Level.WARN)).hasSize(4)
				.allSatisfy((line) -> assertThat(line).contains("without an error reaching the application"));
		}
		assertThat(runs).hasValue(4);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.value(), Integer.class)).isZero();
	}

	private static ClaimRequest request(String key) {
		return new ClaimRequest("check", key, null);
	}

}
