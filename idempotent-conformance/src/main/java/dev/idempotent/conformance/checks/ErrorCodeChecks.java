package dev.idempotent.conformance.checks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import dev.idempotent.conformance.KitTarget;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The error codes the database reports where the claim store must tell them apart, provoked with plain JDBC on the
 * kit's idempotency table and classified as the library classifies them: a duplicate of the (scope, key) index must
 * read as a duplicate (an idempotent hit), a deadlock and a lock-wait timeout between claims of one key as transient
 * (retried, never a hit). Each check publishes the SQLState and vendor code it saw as its evidence.
 */
public class ErrorCodeChecks {

	private KitTarget target;

	private TableName table;

	@BeforeEach
	void createTable() {
		this.target = KitTarget.current();
		this.table = this.target.tables().createClaimTable(this.target.dialect());
	}

	@AfterEach
	void dropTable() {
		this.target.tables().drop(this.table.value());
	}

	@Test
	void aDuplicateOfTheScopeAndKeyIsReportedAsADuplicate(TestReporter evidence) throws SQLException {
		try (Connection connection = connect(null)) {
			insert(connection, "order-1");
			SQLException duplicate = failure(() -> insert(connection, "order-1"));

			evidence.publishEntry("duplicate", describe(duplicate));
			assertThat((Throwable) duplicate).as("a second INSERT of one (scope, key)").isNotNull();
			assertThat(dialect().isDuplicateKey(duplicate)).as("recognised as a duplicate: " + describe(duplicate))
				.isTrue();
			assertThat(dialect().isTransient(duplicate)).as("not taken for transient").isFalse();
		}
	}

	@Test
	void aDeadlockBetweenTwoClaimingTransactionsIsTransient(TestReporter evidence) throws Exception {
		CyclicBarrier bothHoldTheirFirstKey = new CyclicBarrier(2);
		CompletableFuture<@Nullable SQLException> first = CompletableFuture
			.supplyAsync(() -> claimBothInOrder("A", "B", bothHoldTheirFirstKey));
		CompletableFuture<@Nullable SQLException> second = CompletableFuture
			.supplyAsync(() -> claimBothInOrder("B", "A", bothHoldTheirFirstKey));
		List<SQLException> failures = new ArrayList<>();
		for (CompletableFuture<@Nullable SQLException> claim : List.of(first, second)) {
			SQLException failure = claim.get(90, TimeUnit.SECONDS);
			if (failure != null) {
				failures.add(failure);
			}
		}

		evidence.publishEntry("deadlock", failures.stream().map(ErrorCodeChecks::describe).toList().toString());
		assertThat(failures).as("the deadlock victims").isNotEmpty();
		assertThat(failures).allSatisfy((failure) -> assertThat(dialect().isTransient(failure))
			.as("recognised as transient: " + describe(failure)).isTrue());
	}

	@Test
	void aLockWaitTimeoutBehindAClaimOfTheSameKeyIsTransient(TestReporter evidence) throws SQLException {
		try (Connection holder = connect(null); Connection waiter = connect(KitTarget.lockTimeoutSql(dialect()))) {
			holder.setAutoCommit(false);
			waiter.setAutoCommit(false);
			insert(holder, "order-1");
			long start = System.nanoTime();
			SQLException timeout = failure(() -> insert(waiter, "order-1"));
			long waitedMillis = (System.nanoTime() - start) / 1_000_000;
			holder.rollback();
			waiter.rollback();

			evidence.publishEntry("lock-wait timeout", describe(timeout) + " after " + waitedMillis + " ms");
			assertThat((Throwable) timeout).as("a claim waiting behind an uncommitted claim of the same key, with a 1 s lock"
					+ " timeout").isNotNull();
			assertThat(dialect().isTransient(timeout)).as("recognised as transient: " + describe(timeout)).isTrue();
			assertThat(dialect().isDuplicateKey(timeout)).as("not taken for a duplicate").isFalse();
		}
	}

	private @Nullable SQLException claimBothInOrder(String firstKey, String secondKey, CyclicBarrier barrier) {
		try (Connection connection = connect(null)) {
			connection.setAutoCommit(false);
			try {
				insert(connection, firstKey);
				barrier.await(30, TimeUnit.SECONDS);
				insert(connection, secondKey);
				connection.commit();
				return null;
			}
			catch (SQLException ex) {
				connection.rollback();
				return ex;
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private SqlDialect dialect() {
		return this.target.dialect();
	}

	private Connection connect(@Nullable String sessionSql) throws SQLException {
		TestDatabases.Connection connection = this.target.connection();
		Connection jdbc = DriverManager.getConnection(connection.url(), connection.user(), connection.password());
		if (sessionSql != null) {
			try (Statement statement = jdbc.createStatement()) {
				statement.execute(sessionSql);
			}
		}
		return jdbc;
	}

	private void insert(Connection connection, String key) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + this.table
				+ " (scope, idempotency_key, status, attempts, created_at, updated_at)"
				+ " VALUES ('kit', ?, 1, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")) {
			insert.setString(1, key);
			insert.executeUpdate();
		}
	}

	private static @Nullable SQLException failure(SqlAction action) {
		try {
			action.run();
			return null;
		}
		catch (SQLException ex) {
			return ex;
		}
	}

	static String describe(@Nullable SQLException ex) {
		if (ex == null) {
			return "no error";
		}
		return "SQLState " + ex.getSQLState() + ", vendor code " + ex.getErrorCode() + " (" + ex.getClass().getSimpleName()
				+ ")";
	}

	@FunctionalInterface
	private interface SqlAction {

		void run() throws SQLException;

	}

}
