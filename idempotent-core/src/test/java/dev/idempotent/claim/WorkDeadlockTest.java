package dev.idempotent.claim;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import javax.sql.DataSource;

import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A deadlock of the work's own business write, whose victim is the claim's transaction: InnoDB and H2 roll the whole
 * transaction back, claim included. A conflict the database resolved that way is transient: the executor runs the claim
 * and the work again, whether the deadlock's exception reached it or the work caught it and returned normally (then the
 * statements after it ran in a new transaction, and committing would have committed only those, with no claim row: the
 * checkpoint finds the transaction rolled back). Either way the claim and every write commit once.
 */
class WorkDeadlockTest {

	private DataSource dataSource;

	private JdbcTemplate jdbc;

	private final String business = "business_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private TableName table;

	static Stream<Arguments> databases() {
		return Stream.of(true, false).flatMap((caught) -> Stream.of(
				Arguments.of("MariaDB, mysql-connector-j", SqlDialect.MARIADB, caught),
				Arguments.of("MariaDB, mariadb-java-client", SqlDialect.MARIADB, caught),
				Arguments.of("H2", SqlDialect.H2, caught)));
	}

	private static final DataSource MARIADB_JAVA_CLIENT = TestDatabases.pool(new TestDatabases.Connection(
			TestDatabases.MARIADB.url().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:"), TestDatabases.MARIADB.user(),
			TestDatabases.MARIADB.password()), null);

	@AfterEach
	void dropTables() {
		if (this.table != null) {
			TestDatabases.drop(this.dataSource, this.table.value());
		}
		TestDatabases.drop(this.dataSource, this.business);
	}

	@ParameterizedTest(name = "{0}, the work catches the deadlock: {2}")
	@MethodSource("databases")
	void aDeadlockOfTheWorkRunsTheClaimAndTheWorkAgainAndEachCommitsOnce(String database, SqlDialect dialect,
			boolean caught) throws Throwable {
		this.dataSource = database.startsWith("H2") ? TestDatabases.h2()
				: database.contains("mariadb-java-client") ? MARIADB_JAVA_CLIENT : TestDatabases.mariadb();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.table = TestDatabases.createClaimTable(this.dataSource, dialect);
		this.jdbc.execute("CREATE TABLE " + this.business + " (id VARCHAR(64) PRIMARY KEY, n INT)");
		this.jdbc.update("INSERT INTO " + this.business + " VALUES ('a', 0), ('b', 0), ('c', 0)");
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(this.dataSource, this.table, dialect, Clock.systemUTC()),
				new JdbcTransactionManager(this.dataSource), new RecordingClaimListener(), 5);
		CountDownLatch otherHoldsB = new CountDownLatch(1);
		CompletableFuture<Void> other = CompletableFuture.runAsync(() -> deadlockWithTheClaim(dialect, otherHoldsB));
		assertThat(otherHoldsB.await(20, TimeUnit.SECONDS)).isTrue();
		AtomicInteger attempts = new AtomicInteger();
		AtomicInteger deadlocks = new AtomicInteger();

		ClaimOutcome<String> outcome = executor.executeInOwnTransaction(new ClaimRequest("deadlock", "order-1", null), () -> {
			if (attempts.incrementAndGet() > 1) {
				other.join(); // so that the retry meets no deadlock of its own
			}
			this.jdbc.update("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'a'");
			try {
				this.jdbc.update("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'b'");
			}
			catch (DataAccessException deadlock) {
				deadlocks.incrementAndGet();
				if (!caught) {
					throw deadlock;
				}
				// "log and go on": the database has rolled the whole transaction back, claim included
			}
			this.jdbc.update("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'c'");
			return "handled";
		});
		other.get(30, TimeUnit.SECONDS);

		assertThat(deadlocks).as("the claim's transaction was the deadlock victim (else this test proves nothing)").hasValue(1);
		assertThat(attempts).as("the work ran again after its transaction was found rolled back").hasValue(2);
		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>("handled", false));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.value() + " WHERE idempotency_key = ?",
				Integer.class, "order-1")).isOne();
		assertThat(this.jdbc.queryForList("SELECT n FROM " + this.business + " ORDER BY id", Integer.class))
			.as("each write once (a caught deadlock: the first attempt's write of c, made after it, did not commit)")
			.containsExactly(1, 1, 1);
	}

	/**
	 * The other transaction takes b before the claim's transaction begins, waits until the claim's transaction waits for
	 * b, then takes a: a deadlock whose victim is the claim's transaction (on InnoDB it has written fewer rows; on H2 it
	 * is the younger one). Then it rolls back.
	 */
	private void deadlockWithTheClaim(SqlDialect dialect, CountDownLatch otherHoldsB) {
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			if (dialect != SqlDialect.H2) {
				statement.execute("CREATE TEMPORARY TABLE IF NOT EXISTS heavy (n INT) ENGINE=InnoDB");
				statement.execute("INSERT INTO heavy SELECT seq FROM seq_1_to_2000");
			}
			statement.executeUpdate("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'b'");
			otherHoldsB.countDown();
			// a wait on this test's business table: other tests on the same database do not count
			await().atMost(Duration.ofSeconds(20)).until(() -> this.jdbc.queryForObject((dialect == SqlDialect.H2)
					? "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL"
							+ " AND LOWER(EXECUTING_STATEMENT) LIKE ?"
					: "SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS w JOIN information_schema.INNODB_LOCKS l"
							+ " ON l.lock_id = w.requested_lock_id WHERE l.lock_table LIKE ?",
					Integer.class, "%" + this.business + "%") > 0);
			statement.executeUpdate("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'a'");
			connection.rollback();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
