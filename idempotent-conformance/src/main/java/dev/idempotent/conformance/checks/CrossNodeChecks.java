package dev.idempotent.conformance.checks;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.conformance.KitTarget;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.JdbcOffsetStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.metrics.ClaimListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Checks across the nodes of a cluster that accepts writes on several nodes (MariaDB Galera, MySQL Group Replication
 * in multi-primary mode, a distributed SQL database), run when the kit is given {@code --node-url}s: the library's
 * executor claims through each node's own pool, as instances of an application connected to different nodes do. A
 * conflict the cluster reports (at COMMIT, or by aborting a transaction) must be transient, so that the claim is run
 * again and becomes a hit; one key takes effect once whichever nodes claim it.
 */
public class CrossNodeChecks {

	private static final int KEYS = 200;

	private KitTarget target;

	private TableName table;

	private String business;

	@BeforeEach
	void createTables() {
		this.target = KitTarget.current();
		this.table = this.target.tables().createClaimTable(this.target.dialect());
		this.business = this.table.value() + "_biz";
		new JdbcTemplate(this.target.dataSource())
			.execute("CREATE TABLE " + this.business + " (idempotency_key VARCHAR(64) NOT NULL, node INT NOT NULL)");
	}

	@AfterEach
	void dropTables() {
		this.target.tables().drop(this.business);
		this.target.tables().drop(this.table.value());
	}

	@Test
	void aKeyClaimedOnOneNodeIsAHitOnEveryOther(TestReporter evidence) throws Throwable {
		List<DataSource> nodes = nodes();
		AtomicInteger conflicts = new AtomicInteger();
		ClaimOutcome<?> first = claim(nodes.get(0), 0, "order-1", conflicts);
		List<String> outcomes = new ArrayList<>();
		for (int node = 1; node < nodes.size(); node++) {
			ClaimOutcome<?> again = claim(nodes.get(node), node, "order-1", conflicts);
			outcomes.add("node " + node + ": " + again.getClass().getSimpleName());
			assertThat(again).as("node " + node).isInstanceOf(ClaimOutcome.Skipped.class);
		}
		evidence.publishEntry("claims", "node 0: " + first.getClass().getSimpleName() + ", " + outcomes
				+ ", conflicts retried: " + conflicts.get());
		assertThat(first).isInstanceOf(ClaimOutcome.Processed.class);
		awaitEffects(1);
	}

	@Test
	void concurrentClaimsOfTheSameKeysOnTwoNodesTakeEffectOnce(TestReporter evidence) throws Exception {
		List<DataSource> nodes = nodes();
		CyclicBarrier start = new CyclicBarrier(2);
		AtomicInteger conflicts = new AtomicInteger();
		List<CompletableFuture<Integer>> runs = new ArrayList<>();
		for (int node = 0; node < 2; node++) {
			int index = node;
			runs.add(CompletableFuture.supplyAsync(() -> {
				int processed = 0;
				try {
					start.await(30, TimeUnit.SECONDS);
					for (int key = 0; key < KEYS; key++) {
						if (claim(nodes.get(index), index, "order-" + key, conflicts) instanceof ClaimOutcome.Processed) {
							processed++;
						}
					}
				}
				catch (Throwable ex) {
					throw new IllegalStateException(ex);
				}
				return processed;
			}));
		}
		int processed = 0;
		for (CompletableFuture<Integer> run : runs) {
			processed += run.get(5, TimeUnit.MINUTES);
		}
		evidence.publishEntry("claims", KEYS + " keys claimed on nodes 0 and 1 at once: " + processed
				+ " processed, conflicts retried: " + conflicts.get());
		assertThat(processed).as("each key processed by one node").isEqualTo(KEYS);
		awaitEffects(KEYS);
	}

	@Test
	void aStoredOffsetMovesOnAnyNodeOnlyFromTheValueThatNodeExpects(TestReporter evidence) {
		List<DataSource> nodes = nodes();
		TableName offsets = this.target.tables().newName();
		SchemaInitializer.offsets(nodes.get(0), offsets, this.target.dialect()).initialize();
		try {
			assertThat(advance(nodes.get(0), offsets, null, 10)).as("the first offset, on node 0").isTrue();
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
					new JdbcOffsetStore(nodes.get(1), offsets, this.target.dialect(), Clock.systemUTC())
						.find("group", "orders", 0))
				.hasValue(10));
			assertThat(advance(nodes.get(1), offsets, null, 12)).as("a second first offset, on node 1").isFalse();
			assertThat(advance(nodes.get(1), offsets, 9L, 12)).as("from a value it does not hold, on node 1").isFalse();
			assertThat(advance(nodes.get(1), offsets, 10L, 12)).as("from the value it holds, on node 1").isTrue();
			evidence.publishEntry("offsets", "stored 10 on node 0; on node 1 a second insert and a move from 9 refused,"
					+ " the move from 10 to 12 taken");
		}
		finally {
			this.target.tables().drop(offsets.value());
		}
	}

	private List<DataSource> nodes() {
		List<DataSource> nodes = new ArrayList<>();
		nodes.add(this.target.dataSource());
		nodes.addAll(this.target.nodes());
		return nodes;
	}

	/**
	 * Claim a key on a node and record the effect, as a listener would: the executor runs the transaction again after a
	 * conflict (up to its retries), and past them the claim is tried again, as the error handler would.
	 */
	private ClaimOutcome<?> claim(DataSource node, int index, String key, AtomicInteger conflicts) throws Throwable {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(node, this.table, this.target.dialect(), Clock.systemUTC()),
				new DataSourceTransactionManager(node), ClaimListener.NO_OP, TransactionalClaimExecutor.DEFAULT_MAX_TRANSIENT_RETRIES);
		JdbcTemplate jdbc = new JdbcTemplate(node);
		for (int attempt = 1;; attempt++) {
			try {
				return executor.executeInOwnTransaction(new ClaimRequest("kit", key, null),
						() -> jdbc.update("INSERT INTO " + this.business + " (idempotency_key, node) VALUES (?, ?)", key,
								index));
			}
			catch (TransientDataAccessException ex) {
				conflicts.incrementAndGet();
				if (attempt >= 20) {
					throw ex;
				}
			}
		}
	}

	private boolean advance(DataSource node, TableName offsets, Long expected, long next) {
		JdbcOffsetStore store = new JdbcOffsetStore(node, offsets, this.target.dialect(), Clock.systemUTC());
		for (int attempt = 1;; attempt++) {
			try {
				return Boolean.TRUE.equals(new TransactionTemplate(new DataSourceTransactionManager(node))
					.execute((status) -> store.advance("group", "orders", 0, expected, next)));
			}
			catch (TransientDataAccessException ex) {
				if (attempt >= 20) {
					throw ex;
				}
			}
		}
	}

	/** Wait until every node holds the effects: {@code keys} rows, one per key. */
	private void awaitEffects(int keys) {
		for (DataSource node : nodes()) {
			JdbcTemplate jdbc = new JdbcTemplate(node);
			await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + this.business, Integer.class))
					.as("effects").isEqualTo(keys);
				assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT idempotency_key) FROM " + this.business,
						Integer.class)).as("keys with an effect").isEqualTo(keys);
			});
		}
	}

}
