package dev.idempotent.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.GaleraCluster;
import dev.idempotent.testsupport.LogRecorder;
import dev.idempotent.testsupport.RecordingClaimListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Claims on a three-node MariaDB Galera cluster, through mariadb-java-client with its default settings: transactions
 * on different nodes that claim the same key are certified against each other, and the node that loses rolls its
 * transaction back, at COMMIT or by a brute-force abort in the middle of it. When that abort lands during a batched
 * INSERT sent with the bulk protocol (the driver's default for INSERTs), MariaDB 10.11 answers the statement as if
 * every row had been written, the rest of the transaction runs in a new one, and its COMMIT succeeds: the executor
 * must notice (its checkpoint) and run the claims again, never return as if the claims had committed.
 */
class GaleraClaimTransactionTest {

	private static final String SCOPE = "galera";

	private final GaleraCluster cluster = GaleraCluster.shared();

	private final DataSource checks = this.cluster.checkingDataSource(2);

	private final String suffix = Long.toHexString(System.nanoTime());

	private final TableName table = new TableName("galera_claim_" + this.suffix);

	private final String ledger = "galera_ledger_" + this.suffix;

	private final String outbox = "galera_outbox_" + this.suffix;

	@BeforeEach
	void createTables() {
		new SchemaInitializer(this.cluster.dataSource(0, ""), this.table, SqlDialect.MARIADB).initialize();
		this.cluster.execute(0, "CREATE TABLE test." + this.ledger + " (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
				+ " order_key VARCHAR(64) NOT NULL, node INT NOT NULL, KEY (order_key)) ENGINE=InnoDB");
		this.cluster.execute(0, "CREATE TABLE test." + this.outbox + " (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
				+ " order_key VARCHAR(64) NOT NULL, line VARCHAR(64) NOT NULL) ENGINE=InnoDB");
	}

	@AfterEach
	void dropTables() {
		for (String table : List.of(this.table.value(), this.ledger, this.outbox)) {
			this.cluster.execute(0, "DROP TABLE IF EXISTS test." + table);
		}
	}

	@Test
	void aBruteForceAbortDuringABulkInsertRunsTheBatchAgainInsteadOfPassingForCommitted() throws Throwable {
		DataSource node0 = this.cluster.dataSource(0, "");
		TransactionalClaimExecutor executor = executor(node0, new RecordingClaimListener());
		List<ClaimRequest> batch = IntStream.range(0, 20).mapToObj((i) -> request("order-" + i)).toList();
		AtomicBoolean conflictSent = new AtomicBoolean();
		ExecutorService otherNode = Executors.newSingleThreadExecutor();
		try (LogRecorder log = LogRecorder.of(TransactionalClaimExecutor.class.getName())) {
			BatchOutcome<Void> outcome = executor.executeBatch(batch, (positions) -> {
				Future<?> conflict = null;
				if (conflictSent.compareAndSet(false, true)) {
					// while this transaction's bulk INSERT runs on node 0, node 1 commits a claim of one of its keys
					long connection = connectionId(node0);
					conflict = otherNode.submit(() -> {
						awaitStatementRunning(connection, "INSERT INTO " + this.outbox);
						claimOnNode(1, "order-7");
						return null;
					});
				}
				write(node0, 0, positions.stream().map(batch::get).toList(), 500);
				if (conflict != null) {
					conflict.get(60, TimeUnit.SECONDS);
				}
				return null;
			});
			assertThat(outcome.claimed()).as("the retry found order-7 claimed by node 1").hasSize(19);
			assertThat(outcome.hits()).containsExactly(7);
			assertThat(log.messages(Level.WARN)).as("the abort was hidden by the bulk INSERT, and found by the check")
				.singleElement()
				.satisfies((line) -> assertThat(line).contains("without an error reaching the application"));
		}
		finally {
			otherNode.shutdownNow();
		}
		for (int i = 0; i < 20; i++) {
			assertThat(effects("order-" + i)).as("order-" + i).isEqualTo((i == 7) ? 0 : 1);
			assertThat(claimRows("order-" + i)).as("order-" + i).isOne();
		}
		assertThat(outboxRows()).as("only the retry's lines").isEqualTo(19 * 500);
	}

	@Test
	void concurrentBatchesOnTwoNodesWithOverlappingKeysTakeEachEffectOnceAndReturnOnlyWhatCommitted() throws Exception {
		int batches = 40;
		int batchSize = 50;
		Map<String, Integer> returned = new ConcurrentHashMap<>();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<String> notReadable = new CopyOnWriteArrayList<>();
		ExecutorService nodes = Executors.newFixedThreadPool(2);
		List<Future<?>> runs = new ArrayList<>();
		for (int node = 0; node < 2; node++) {
			int on = node;
			runs.add(nodes.submit(() -> {
				DataSource dataSource = this.cluster.dataSource(on, "");
				TransactionalClaimExecutor executor = executor(dataSource, new RecordingClaimListener());
				for (int b = 0; b < batches; b++) {
					// keys of its own, and every fifth key shared with the other node's batch of the same number
					List<ClaimRequest> batch = new ArrayList<>();
					for (int i = 0; i < batchSize; i++) {
						batch.add(request((i % 5 == 0) ? "shared-" + b + "-" + i : "node" + on + "-" + b + "-" + i));
					}
					Collections.shuffle(batch);
					// as a listener container does, a batch that failed is delivered again (a brute-force abort reported
					// on one of the work's statements fails the work, as any deadlock of the business write does)
					for (int attempt = 1; attempt <= 10; attempt++) {
						try {
							BatchOutcome<Void> outcome = executor.executeBatch(batch, (positions) -> {
								write(dataSource, on, positions.stream().map(batch::get).toList(), 20);
								return null;
							});
							for (int position : outcome.claimed()) {
								String key = batch.get(position).key();
								returned.merge(key, 1, Integer::sum);
								// what a caller would commit the offset of: its effect is readable on the whole cluster
								if (effects(key) != 1) {
									notReadable.add(key);
								}
							}
							break;
						}
						catch (Throwable ex) {
							if (attempt == 10) {
								failures.add(ex);
							}
						}
					}
				}
				return null;
			}));
		}
		for (Future<?> run : runs) {
			run.get(10, TimeUnit.MINUTES);
		}
		nodes.shutdown();
		assertThat(failures).as("every batch passes within 10 deliveries").isEmpty();
		assertThat(notReadable).as("claimed keys returned before their effect was committed").isEmpty();
		for (int b = 0; b < batches; b++) {
			for (int i = 0; i < batchSize; i++) {
				List<String> keys = (i % 5 == 0) ? List.of("shared-" + b + "-" + i)
						: List.of("node0-" + b + "-" + i, "node1-" + b + "-" + i);
				for (String key : keys) {
					assertThat(effects(key)).as(key).isOne();
					assertThat(returned.get(key)).as(key + " claimed once").isOne();
				}
			}
		}
	}

	private TransactionalClaimExecutor executor(DataSource dataSource, RecordingClaimListener listener) {
		return new TransactionalClaimExecutor(new JdbcClaimStore(dataSource, this.table, SqlDialect.MARIADB,
				Clock.systemUTC()), new JdbcTransactionManager(dataSource), listener, 20);
	}

	private static ClaimRequest request(String key) {
		return new ClaimRequest(SCOPE, key, null);
	}

	/** The listener's business write: a ledger row per claimed key, then outbox lines, both as batched INSERTs. */
	private void write(DataSource dataSource, int node, List<ClaimRequest> claimed, int linesPerKey) throws SQLException {
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + this.ledger
					+ " (order_key, node) VALUES (?, ?)")) {
				for (ClaimRequest request : claimed) {
					ps.setString(1, request.key());
					ps.setInt(2, node);
					ps.addBatch();
				}
				ps.executeBatch();
			}
			try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + this.outbox
					+ " (order_key, line) VALUES (?, ?)")) {
				for (ClaimRequest request : claimed) {
					for (int line = 0; line < linesPerKey; line++) {
						ps.setString(1, request.key());
						ps.setString(2, "line-" + line);
						ps.addBatch();
					}
				}
				ps.executeBatch();
			}
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
	}

	private static long connectionId(DataSource dataSource) {
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			return new JdbcTemplate(new org.springframework.jdbc.datasource.SingleConnectionDataSource(connection, true))
				.queryForObject("SELECT CONNECTION_ID()", Long.class);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
	}

	private void awaitStatementRunning(long connection, String statement) {
		JdbcTemplate node0 = new JdbcTemplate(this.cluster.dataSource(0, ""));
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> node0.queryForObject(
				"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ? AND INFO LIKE ?", Integer.class,
				connection, statement + "%") > 0);
	}

	private void claimOnNode(int node, String key) {
		new JdbcTemplate(this.cluster.dataSource(node, "")).update("INSERT INTO " + this.table.value()
				+ " (scope, idempotency_key, status, attempts, created_at, updated_at) VALUES (?, ?, 1, 1, NOW(6), NOW(6))",
				SCOPE, key);
	}

	private int effects(String key) {
		return new JdbcTemplate(this.checks).queryForObject("SELECT COUNT(*) FROM test." + this.ledger
				+ " WHERE order_key = ?", Integer.class, key);
	}

	private int claimRows(String key) {
		return new JdbcTemplate(this.checks).queryForObject("SELECT COUNT(*) FROM test." + this.table.value()
				+ " WHERE scope = ? AND idempotency_key = ?", Integer.class, SCOPE, key);
	}

	private int outboxRows() {
		return new JdbcTemplate(this.checks).queryForObject("SELECT COUNT(*) FROM test." + this.outbox, Integer.class);
	}

}
