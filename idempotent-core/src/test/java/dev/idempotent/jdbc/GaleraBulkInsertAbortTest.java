package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.idempotent.testsupport.GaleraCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The reproduction of the known issue in docs/operations.md ("MariaDB Galera answers an aborted bulk INSERT with
 * success"), in plain JDBC and without any code of this library: a transaction on node 0 inserts a key, then runs a
 * batched INSERT of 20,000 rows; while it runs, node 1 commits the same key. Node 0 aborts its transaction for node
 * 1's. Sent with the bulk protocol (mariadb-java-client's default for batched INSERTs), the INSERT returns every update
 * count, the transaction is gone, and the COMMIT succeeds with nothing to commit. Sent without it, the INSERT fails with
 * 1213 as it should. If the first test fails, the server (or driver) reports the abort now: update the docs.
 */
class GaleraBulkInsertAbortTest {

	private final GaleraCluster cluster = GaleraCluster.shared();

	private final String suffix = Long.toHexString(System.nanoTime());

	@AfterEach
	void dropTables() {
		this.cluster.execute(0, "DROP TABLE IF EXISTS test.claims_" + this.suffix);
		this.cluster.execute(0, "DROP TABLE IF EXISTS test.outbox_" + this.suffix);
	}

	@Test
	void withTheBulkProtocolTheAbortedInsertIsAnsweredWithSuccessAndItsRowsAreGone() throws Exception {
		int[] counts = abortDuringBatchedInsert("");

		assertThat(counts).as("every row reported written").hasSize(20_000).containsOnly(1);
		assertThat(outboxRows()).as("no row survived the commit").isZero();
	}

	@Test
	void withoutTheBulkProtocolTheAbortIsReported() {
		assertThatThrownBy(() -> abortDuringBatchedInsert("?useBulkStmts=false&useBulkStmtsForInserts=false"))
			.isInstanceOfSatisfying(SQLException.class, (ex) -> assertThat(ex.getErrorCode()).isEqualTo(1213));
	}

	private int[] abortDuringBatchedInsert(String options) throws Exception {
		this.cluster.execute(0, "CREATE TABLE test.claims_" + this.suffix + " (k VARCHAR(64) PRIMARY KEY)");
		this.cluster.execute(0, "CREATE TABLE test.outbox_" + this.suffix
				+ " (id BIGINT AUTO_INCREMENT PRIMARY KEY, line VARCHAR(64))");
		try (Connection connection = DriverManager.getConnection(this.cluster.url(0) + options, "root", "")) {
			connection.setAutoCommit(false);
			try (Statement statement = connection.createStatement()) {
				statement.execute("INSERT INTO claims_" + this.suffix + " VALUES ('k1')");
			}
			long id = connectionId(connection);
			CompletableFuture<Void> otherNode = CompletableFuture.runAsync(() -> {
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> running(id));
				this.cluster.execute(1, "INSERT INTO test.claims_" + this.suffix + " VALUES ('k1')");
			});
			try (PreparedStatement ps = connection.prepareStatement("INSERT INTO outbox_" + this.suffix
					+ " (line) VALUES (?)")) {
				for (int i = 0; i < 20_000; i++) {
					ps.setString(1, "line-" + i);
					ps.addBatch();
				}
				int[] counts = ps.executeBatch();
				connection.commit();
				return counts;
			}
			finally {
				otherNode.get(60, TimeUnit.SECONDS);
			}
		}
	}

	private static long connectionId(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery("SELECT CONNECTION_ID()")) {
			rs.next();
			return rs.getLong(1);
		}
	}

	/** Whether the connection runs the batched INSERT now. */
	private boolean running(long connection) throws SQLException {
		try (Connection observer = DriverManager.getConnection(this.cluster.url(0), "root", "");
				PreparedStatement ps = observer.prepareStatement("SELECT COUNT(*) FROM information_schema.PROCESSLIST"
						+ " WHERE ID = ? AND INFO LIKE 'INSERT INTO outbox%'")) {
			ps.setLong(1, connection);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() && rs.getInt(1) > 0;
			}
		}
	}

	private int outboxRows() throws SQLException {
		try (Connection connection = DriverManager.getConnection(this.cluster.url(2), "root", "");
				Statement statement = connection.createStatement()) {
			statement.execute("SET SESSION wsrep_sync_wait = 1");
			try (ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM outbox_" + this.suffix)) {
				rs.next();
				return rs.getInt(1);
			}
		}
	}

}
