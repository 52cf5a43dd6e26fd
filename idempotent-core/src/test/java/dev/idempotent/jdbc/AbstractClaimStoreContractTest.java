package dev.idempotent.jdbc;

import java.text.Normalizer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimInProgressException;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.ConflictLog;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.HitOrigin;
import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.claim.LeaseResult;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.claim.PayloadFingerprint;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.KeyValidator;
import dev.idempotent.testsupport.LogRecorder;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The claim store contract, written once and run against every supported database by a small subclass.
 */
public abstract class AbstractClaimStoreContractTest {

	protected static final Instant FIXED_NOW = Instant.parse("2026-01-02T03:04:05.123456Z");

	protected DataSource dataSource;

	protected TableName table;

	protected String businessTable;

	protected JdbcTemplate jdbc;

	protected JdbcClaimStore store;

	protected JdbcLeasedClaimStore leases;

	protected TransactionTemplate transactions;

	protected RecordingClaimListener listener;

	protected TransactionalClaimExecutor executor;

	/** The database under test. */
	protected abstract DataSource dataSource();

	/** The dialect the database must be detected as. */
	protected abstract SqlDialect expectedDialect();

	/** A session statement that makes a lock wait give up after about a second. */
	protected abstract String lockTimeoutSql();

	/** How to reach the database under test, for a second pool with other session settings. */
	protected abstract TestDatabases.Connection connection();

	/** Wait until each waiter's claim waits for the row lock held by another transaction. */
	protected abstract void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters);

	@BeforeEach
	void createTables() {
		this.dataSource = dataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		SqlDialect dialect = expectedDialect();
		this.table = createClaimTable(this.dataSource, dialect);
		this.businessTable = businessTableName(this.table);
		this.jdbc.execute("CREATE TABLE " + this.businessTable
				+ " (id BIGINT NOT NULL PRIMARY KEY, order_id VARCHAR(64) NOT NULL, CONSTRAINT uk_" + this.businessTable
				+ "_order UNIQUE (order_id))");
		this.store = new JdbcClaimStore(this.dataSource, this.table, dialect, Clock.fixed(FIXED_NOW, ZoneId.of("Asia/Tokyo")));
		this.leases = new JdbcLeasedClaimStore(this.dataSource, this.table, dialect,
				Clock.fixed(FIXED_NOW, ZoneId.of("Asia/Tokyo")));
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.dataSource);
		this.transactions = new TransactionTemplate(transactionManager);
		this.listener = new RecordingClaimListener();
		this.executor = new TransactionalClaimExecutor(this.store, transactionManager, this.listener, 5);
	}

	@AfterEach
	void dropTables() {
		dropTable(this.table.value());
		dropTable(this.businessTable);
	}

	/**
	 * Create an idempotency table with a fresh name from the shipped DDL. The conformance kit overrides this (and
	 * {@link #businessTableName} and {@link #dropTable}) to keep to tables it created itself.
	 */
	protected TableName createClaimTable(DataSource dataSource, SqlDialect dialect) {
		return TestDatabases.createClaimTable(dataSource, dialect);
	}

	/** The name of the business table the tests write next to the given idempotency table. */
	protected String businessTableName(TableName claimTable) {
		return "biz_" + claimTable.value().substring(5);
	}

	/** Drop a table this test created, if it exists. */
	protected void dropTable(String name) {
		TestDatabases.drop(this.dataSource, name);
	}

	@Test
	void detectsTheDialect() {
		assertThat(SqlDialect.detect(this.dataSource)).isEqualTo(expectedDialect());
	}

	@Test
	void firstDeliveryClaimsAndLaterOnesAreHits() throws Throwable {
		AtomicInteger runs = new AtomicInteger();
		ClaimOutcome<String> first = this.executor.execute(request("order-1"), () -> "ran-" + runs.incrementAndGet());
		ClaimOutcome<String> second = this.executor.execute(request("order-1"), () -> "ran-" + runs.incrementAndGet());

		assertThat(first).isEqualTo(new ClaimOutcome.Processed<>("ran-1", false));
		assertThat(second).isInstanceOfSatisfying(ClaimOutcome.Skipped.class, (skipped) -> {
			assertThat(skipped.hit().status()).isEqualTo(ClaimStatus.SUCCEEDED);
			assertThat(skipped.hit().firstProcessedAt()).isEqualTo(FIXED_NOW);
		});
		assertThat(runs).hasValue(1);
		assertThat(this.listener.claimed).hasValue(1);
		assertThat(this.listener.hits).hasValue(1);
		assertThat(row("order-1")).containsExactly(1, 1, "orders", 2, 42L);
	}

	@Test
	void aHitLeavesTheBusinessTransactionUsable() throws Throwable {
		this.executor.execute(request("order-1"), () -> null);
		this.transactions.executeWithoutResult((status) -> {
			assertThat(this.store.claim(request("order-1"))).isInstanceOf(ClaimResult.Hit.class);
			this.jdbc.update("INSERT INTO " + this.businessTable + " (id, order_id) VALUES (1, 'after-hit')");
		});
		assertThat(count(this.businessTable)).isEqualTo(1);
	}

	@Test
	void aFailedRowIsClaimedAgain() throws Throwable {
		this.executor.execute(request("order-1"), () -> null);
		this.jdbc.update("UPDATE " + this.table + " SET status = 2, last_error = 'boom'");

		ClaimOutcome<String> outcome = this.executor.execute(request("order-1"), () -> "again");

		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>("again", true));
		assertThat(this.listener.reclaimed).hasValue(1);
		assertThat(row("order-1")).containsExactly(1, 2, "orders", 2, 42L);
	}

	@Test
	void aDeadLetteredKeyIsRecordedAsFailedAfterTheRollbackAndClaimedAgainOnReplay() throws Throwable {
		FailureRecorder recorder = new FailureRecorder(this.store, new DataSourceTransactionManager(this.dataSource));
		assertThatThrownBy(() -> this.executor.execute(request("order-1"), () -> {
			throw new IllegalStateException("ledger closed");
		})).hasMessage("ledger closed");

		recorder.record(request("order-1"), 4, new RuntimeException("wrapped", new IllegalStateException("ledger closed")));
		recorder.record(request("order-1"), 2, new IllegalStateException("x".repeat(2000)));

		Map<String, Object> failed = this.jdbc.queryForMap("SELECT status, attempts, last_error FROM " + this.table);
		assertThat(((Number) failed.get("status")).intValue()).isEqualTo(ClaimStatus.FAILED.code());
		assertThat(((Number) failed.get("attempts")).intValue()).isEqualTo(6);
		assertThat((String) failed.get("last_error")).hasSize(FailureRecorder.MAX_ERROR_LENGTH)
			.startsWith("java.lang.IllegalStateException: xxx");
		assertThat(this.executor.execute(request("order-1"), () -> "replayed"))
			.isEqualTo(new ClaimOutcome.Processed<>("replayed", true));
	}

	@Test
	void recordingAFailureNeverDowngradesASucceededKey() throws Throwable {
		this.executor.execute(request("order-1"), () -> null);
		new FailureRecorder(this.store, new DataSourceTransactionManager(this.dataSource)).record(request("order-1"), 1,
				new IllegalStateException("late"));
		assertThat(row("order-1").get(0)).isEqualTo(ClaimStatus.SUCCEEDED.code());
	}

	@Test
	void aFailureOfTheWorkRollsBackTheClaimWithTheBusinessWrite() {
		assertThatThrownBy(() -> this.executor.execute(request("order-1"), () -> {
			this.jdbc.update("INSERT INTO " + this.businessTable + " (id, order_id) VALUES (1, 'order-1')");
			throw new java.io.IOException("listener failed");
		})).isInstanceOf(java.io.IOException.class).hasMessage("listener failed");

		assertThat(count(this.table.value())).isZero();
		assertThat(count(this.businessTable)).isZero();
	}

	@Test
	void keysCompareByteForByte() throws Throwable {
		List<String> keys = List.of("Order-A", "order-a", "ORDER-A", "a", "a ", " a", "cafe", "café",
				Normalizer.normalize("café", Normalizer.Form.NFD), "straße", "strasse", "\uD83D\uDE00", "\uD83D\uDE01",
				"ａ", "Ａ");
		AtomicInteger runs = new AtomicInteger();
		for (String key : keys) {
			assertThat(this.executor.execute(request(key), runs::incrementAndGet))
				.as("key '%s'", key)
				.isInstanceOf(ClaimOutcome.Processed.class);
		}
		for (String key : keys) {
			assertThat(this.executor.execute(request(key), runs::incrementAndGet))
				.as("key '%s' again", key)
				.isInstanceOf(ClaimOutcome.Skipped.class);
		}
		assertThat(runs).hasValue(keys.size());
		assertThat(this.jdbc.queryForList("SELECT idempotency_key FROM " + this.table, String.class))
			.containsExactlyInAnyOrderElementsOf(keys);
	}

	@Test
	void keysCompareByteForByteInABatchAndAreStoredAsSent() throws Throwable {
		List<String> keys = new ArrayList<>(List.of("Order-A", "order-a", "a", "a ", " a", "café",
				Normalizer.normalize("café", Normalizer.Form.NFD), "\uD83D\uDE00", "NULL", "null", "\"quoted\"",
				"back\\slash", "{braces}", "a,b", "'single'", "tab\there",
				"\uD83D\uDCB0".repeat(KeyValidator.DEFAULT_MAX_LENGTH)));
		java.util.Collections.sort(keys);
		List<ClaimRequest> requests = keys.stream().map(this::request).toList();

		BatchOutcome<Integer> first = this.executor.executeBatch(requests, List::size);
		BatchOutcome<Integer> again = this.executor.executeBatch(requests, List::size);

		assertThat(first.value()).isEqualTo(keys.size());
		assertThat(again.claimed()).isEmpty();
		assertThat(again.hits()).hasSize(keys.size());
		assertThat(this.jdbc.queryForList("SELECT idempotency_key FROM " + this.table, String.class))
			.containsExactlyInAnyOrderElementsOf(keys);
	}

	@Test
	void aKeyOfMaxLengthInFourByteCharactersIsStoredAndOneMoreIsRejected() throws Throwable {
		KeyValidator validator = new KeyValidator(KeyValidator.DEFAULT_MAX_LENGTH);
		String longest = "\uD83D\uDCB0".repeat(KeyValidator.DEFAULT_MAX_LENGTH);

		String key = validator.validate(longest, "test");
		assertThat(this.executor.execute(request(key), () -> "ok")).isInstanceOf(ClaimOutcome.Processed.class);
		assertThat(this.executor.execute(request(key), () -> "ok")).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(this.jdbc.queryForObject("SELECT idempotency_key FROM " + this.table, String.class)).isEqualTo(longest);
		assertThatThrownBy(() -> validator.validate(longest + "x", "test"))
			.isInstanceOf(InvalidIdempotencyKeyException.class)
			.hasMessageContaining("129 characters");
	}

	@Test
	void aViolationOfAnotherUniqueConstraintOfTheClaimTableIsNeverAHit() {
		this.jdbc.update("INSERT INTO " + this.table + " (id, scope, idempotency_key, status, attempts, created_at,"
				+ " updated_at) VALUES (900000001, 'other', 'k', 1, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
		this.jdbc.execute("CREATE UNIQUE INDEX ux_" + this.table.value() + "_topic ON " + this.table + " (source_topic)");
		assertThatThrownBy(() -> {
			this.executor.execute(request("order-1"), () -> "first");
			this.executor.execute(request("order-2"), () -> "second, same source topic");
		}).isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class)
			.hasMessageContaining("violated a unique constraint other than (scope, idempotency_key)");
		assertThat(this.listener.hits).hasValue(0);
	}

	@Test
	void aBatchViolatingAnotherUniqueConstraintOfTheClaimTableFailsWholeAndIsNeverAHit() {
		this.jdbc.execute("CREATE UNIQUE INDEX ux_" + this.table.value() + "_topic ON " + this.table + " (source_topic)");
		List<ClaimRequest> sameSourceTopic = List.of(request("order-1"), request("order-2"), request("order-3"));

		assertThatThrownBy(() -> this.executor.executeBatch(sameSourceTopic, List::size))
			.isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class);
		assertThat(this.listener.hits).hasValue(0);
		assertThat(count(this.table.value())).as("the batch rolled back").isZero();
	}

	/**
	 * A transaction that read before its claim has a snapshot (REPEATABLE READ); on H2 even a locking read sees only
	 * that snapshot, so a duplicate whose row it cannot read may be a row committed after the snapshot (transient) or
	 * another constraint's violation, which must be an error: retrying it would never succeed.
	 */
	@Test
	void aViolationOfAnotherUniqueConstraintInATransactionThatAlreadyReadIsAnErrorNotTransient() throws Throwable {
		this.executor.execute(request("order-1"), () -> null);
		this.jdbc.execute("CREATE UNIQUE INDEX ux_" + this.table.value() + "_topic ON " + this.table + " (source_topic)");
		TransactionTemplate listenerTransaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		listenerTransaction.setIsolationLevel(Isolation.REPEATABLE_READ.value());

		assertThatThrownBy(() -> listenerTransaction.executeWithoutResult((status) -> {
			this.jdbc.queryForList("SELECT idempotency_key FROM " + this.table, String.class);
			try {
				this.executor.execute(request("order-2"), () -> "second, same source topic");
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		})).isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class)
			.hasMessageContaining("violated a unique constraint other than (scope, idempotency_key)");
		assertThat(this.listener.hits).hasValue(0);
	}

	/**
	 * LEASED mode: a duplicate from another unique constraint of the claim table leaves no row to read for the key. It is
	 * an error, as in TRANSACTIONAL mode, never "in progress elsewhere" (which is retried without end).
	 */
	/**
	 * A value of a column other than the key that the column cannot hold (here a source topic longer than a narrowed
	 * column) is an error, as a plain INSERT reports it, never stored altered: MySQL's and MariaDB's {@code IGNORE}
	 * would store it truncated with a mere warning, and a lease or claim row would then say something else than what
	 * was delivered.
	 */
	@Test
	void aSourceTopicTheColumnCannotHoldFailsClaimsLeasesAndBatchesInsteadOfBeingStoredTruncated() {
		this.jdbc.execute(switch (expectedDialect()) {
			case MYSQL, MARIADB -> "ALTER TABLE " + this.table + " MODIFY source_topic VARCHAR(10) NULL";
			case POSTGRESQL -> "ALTER TABLE " + this.table + " ALTER COLUMN source_topic TYPE VARCHAR(10)";
			case H2 -> "ALTER TABLE " + this.table + " ALTER COLUMN source_topic SET DATA TYPE VARCHAR(10)";
		});
		ClaimRequest longTopic = new ClaimRequest("ledger", "order-1", new DeliverySource("orders-of-the-eu-west", 2, 42));

		assertThatThrownBy(() -> this.executor.execute(longTopic, () -> "booked"))
			.isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class);
		assertThatThrownBy(() -> leasedExecutor().execute(longTopic, Duration.ofMinutes(1), () -> "sent"))
			.isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class);
		DeliverySource source = new DeliverySource("orders-of-the-eu-west", 2, 43);
		assertThatThrownBy(() -> this.executor.executeBatch(List.of(new ClaimRequest("ledger", "order-2", source),
				new ClaimRequest("ledger", "order-3", source)), List::size))
			.isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class);
		assertThat(count(this.table.value())).as("nothing stored").isZero();
		assertThat(this.listener.hits).hasValue(0);
	}

	@Test
	void aLeasedClaimViolatingAnotherUniqueConstraintOfTheClaimTableIsAnErrorNotInProgress() throws Throwable {
		this.jdbc.execute("CREATE UNIQUE INDEX ux_" + this.table.value() + "_topic ON " + this.table + " (source_topic)");
		LeasedClaimExecutor leased = leasedExecutor();
		leased.execute(request("sms-1"), Duration.ofMinutes(1), () -> "sent");
		AtomicInteger calls = new AtomicInteger();

		assertThatThrownBy(() -> leased.execute(request("sms-2"), Duration.ofMinutes(1), calls::incrementAndGet))
			.isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class)
			.hasMessageContaining("violated a unique constraint other than (scope, idempotency_key)")
			.hasMessageNotContaining("sms-2");
		assertThat(calls).hasValue(0);
		assertThat(this.listener.hits).hasValue(0);
		assertThat(count(this.table.value())).isOne();
	}

	@Test
	void aRepeatableReadTransactionStillReclaimsAFailedRowCommittedAfterItsSnapshot() throws Throwable {
		this.executor.execute(request("other"), () -> null);
		TransactionTemplate listenerTransaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		listenerTransaction.setIsolationLevel(Isolation.REPEATABLE_READ.value());
		AtomicInteger attempts = new AtomicInteger();
		ClaimOutcome<String> outcome = null;
		while (outcome == null) {
			try {
				outcome = listenerTransaction.execute((status) -> {
					this.jdbc.queryForList("SELECT idempotency_key FROM " + this.table, String.class);
					if (attempts.incrementAndGet() == 1) {
						CompletableFuture.runAsync(() -> new FailureRecorder(this.store,
								new DataSourceTransactionManager(this.dataSource)).record(request("order-1"), 3,
										new IllegalStateException("dead-lettered"))).join();
					}
					try {
						return this.executor.execute(request("order-1"), () -> "replayed");
					}
					catch (RuntimeException ex) {
						throw ex;
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				});
			}
			catch (TransientClaimException ex) {
				assertThat(attempts).hasValueLessThan(3);
			}
		}
		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>("replayed", true));
	}

	@Test
	void aViolationOfABusinessUniqueConstraintIsAFailureNotAHit() throws Throwable {
		this.jdbc.update("INSERT INTO " + this.businessTable + " (id, order_id) VALUES (1, 'order-1')");

		assertThatThrownBy(() -> this.executor.execute(request("payment-7"), () -> this.jdbc
			.update("INSERT INTO " + this.businessTable + " (id, order_id) VALUES (2, 'order-1')")))
			.isInstanceOf(DuplicateKeyException.class);

		assertThat(this.listener.hits).hasValue(0);
		assertThat(count(this.table.value())).isZero();
		assertThat(this.executor.execute(request("payment-7"), () -> "retried")).isInstanceOf(ClaimOutcome.Processed.class);
	}

	@Test
	void concurrentClaimsOfOneKeyRunTheWorkOnce() throws Exception {
		int threads = 8;
		CyclicBarrier start = new CyclicBarrier(threads);
		AtomicInteger writes = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<ClaimOutcome<Integer>>> outcomes = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				int id = i;
				outcomes.add(pool.submit(() -> {
					start.await();
					try {
						return this.executor.execute(request("order-1"), () -> {
							this.jdbc.update("INSERT INTO " + this.businessTable + " (id, order_id) VALUES (?, ?)", id,
									"order-" + id);
							return writes.incrementAndGet();
						});
					}
					catch (Throwable ex) {
						throw new AssertionError(ex);
					}
				}));
			}
			int processed = 0;
			for (Future<ClaimOutcome<Integer>> outcome : outcomes) {
				if (outcome.get(60, TimeUnit.SECONDS) instanceof ClaimOutcome.Processed) {
					processed++;
				}
			}
			assertThat(processed).isOne();
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(writes).hasValue(1);
		assertThat(count(this.businessTable)).isOne();
		assertThat(this.listener.hits).hasValue(threads - 1);
	}

	@Test
	void aHolderThatRollsBackLetsExactlyOneOfTheWaitingClaimsWin() throws Exception {
		HeldClaim holder = new HeldClaim("order-1", false);
		AtomicInteger runs = new AtomicInteger();
		List<CompletableFuture<ClaimOutcome<Integer>>> waiters = new ArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			waiters.add(startThread("claim-waiter-" + i, threads,
					() -> this.executor.execute(request("order-1"), runs::incrementAndGet)));
		}
		holder.releaseAfterLockWaits(threads);
		List<Class<?>> outcomes = new ArrayList<>();
		for (CompletableFuture<ClaimOutcome<Integer>> waiter : waiters) {
			outcomes.add(waiter.get(60, TimeUnit.SECONDS).getClass());
		}
		assertThat(outcomes).containsExactlyInAnyOrder(ClaimOutcome.Processed.class, ClaimOutcome.Skipped.class);
		assertThat(runs).hasValue(1);
		assertThat(this.listener.hits).hasValue(1);
	}

	@Test
	void aDeadlockBetweenTwoClaimingTransactionsIsRetriedAndNeverAHit() throws Exception {
		CountingStore counting = new CountingStore(this.store);
		TransactionalClaimExecutor retrying = new TransactionalClaimExecutor(counting,
				new DataSourceTransactionManager(this.dataSource), this.listener, 5);
		CyclicBarrier bothHoldTheirFirstKey = new CyclicBarrier(2);
		CompletableFuture<ClaimOutcome<String>> first = claimBothInOrder(retrying, counting, "A", "B",
				bothHoldTheirFirstKey);
		CompletableFuture<ClaimOutcome<String>> second = claimBothInOrder(retrying, counting, "B", "A",
				bothHoldTheirFirstKey);

		List<Class<?>> outcomes = List.of(first.get(60, TimeUnit.SECONDS).getClass(),
				second.get(60, TimeUnit.SECONDS).getClass());

		assertThat(counting.transientFailures).as("deadlock victims").hasPositiveValue();
		assertThat(outcomes).containsExactlyInAnyOrder(ClaimOutcome.Processed.class, ClaimOutcome.Skipped.class);
		assertThat(this.jdbc.queryForList("SELECT idempotency_key FROM " + this.table, String.class))
			.containsExactlyInAnyOrder("A", "B");
	}

	@Test
	void aLockWaitTimeoutIsRetriedAndNeverAHit() throws Exception {
		DataSource impatient = TestDatabases.pool(connection(), lockTimeoutSql());
		try {
			CountingStore counting = new CountingStore(new JdbcClaimStore(impatient, this.table, expectedDialect(),
					Clock.systemUTC()));
			TransactionalClaimExecutor waiterExecutor = new TransactionalClaimExecutor(counting,
					new DataSourceTransactionManager(impatient), this.listener, 20);
			CountDownLatch holding = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<ClaimOutcome<String>> holder = CompletableFuture.supplyAsync(() -> {
				try {
					return this.executor.execute(request("order-1"), () -> {
						holding.countDown();
						release.await();
						return "holder";
					});
				}
				catch (Throwable ex) {
					throw new IllegalStateException(ex);
				}
			});
			assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<ClaimOutcome<String>> waiter = CompletableFuture.supplyAsync(() -> {
				try {
					return waiterExecutor.execute(request("order-1"), () -> "waiter");
				}
				catch (Throwable ex) {
					throw new IllegalStateException(ex);
				}
			});
			await().atMost(java.time.Duration.ofSeconds(30)).until(() -> counting.transientFailures.get() >= 1);
			release.countDown();

			assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo(new ClaimOutcome.Processed<>("holder", false));
			assertThat(waiter.get(60, TimeUnit.SECONDS)).isInstanceOf(ClaimOutcome.Skipped.class);
			assertThat(this.listener.hits).hasValue(1);
		}
		finally {
			((AutoCloseable) impatient).close();
		}
	}

	@ParameterizedTest
	@EnumSource(value = Isolation.class, names = { "READ_COMMITTED", "REPEATABLE_READ" })
	void aListenerTransactionThatAlreadyReadRowsStillRecognisesAHit(Isolation isolation) throws Throwable {
		this.executor.execute(request("other"), () -> null);
		TransactionTemplate listenerTransaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		listenerTransaction.setIsolationLevel(isolation.value());
		AtomicInteger runs = new AtomicInteger();
		AtomicInteger attempts = new AtomicInteger();
		ClaimOutcome<Integer> outcome = null;
		while (outcome == null) {
			try {
				outcome = listenerTransaction.execute((status) -> {
					this.jdbc.queryForList("SELECT idempotency_key FROM " + this.table, String.class);
					if (attempts.incrementAndGet() == 1) {
						CompletableFuture.runAsync(() -> claimAndRun(this.executor, "order-1", runs)).join();
					}
					return claimAndRun(this.executor, "order-1", runs);
				});
			}
			catch (TransientClaimException ex) {
				// the caller's own transaction saw a serialization failure (PostgreSQL, REPEATABLE READ): retry it
				assertThat(attempts).hasValueLessThan(3);
			}
		}
		assertThat(outcome).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(runs).hasValue(1);
	}

	@Test
	void timesAreStoredInUtcWhateverTheJvmAndSessionZones() throws Throwable {
		assertThat(java.util.TimeZone.getDefault().getID()).isEqualTo("Asia/Shanghai");
		this.executor.execute(request("order-1"), () -> null);
		String stored = this.jdbc.queryForObject("SELECT CAST(created_at AS CHAR(26)) FROM " + this.table, String.class);
		assertThat(stored).startsWith("2026-01-02 03:04:05.123456");
	}

	@Test
	void aBatchClaimsItsNewKeysOnceAndSkipsOldKeysAndRepeats() throws Throwable {
		this.executor.execute(request("b"), () -> null);
		List<List<Integer>> seenByWork = new ArrayList<>();

		BatchOutcome<String> outcome = this.executor.executeBatch(
				List.of(request("a"), request("b"), request("a"), request("c")), (claimed) -> {
					seenByWork.add(claimed);
					return "credited";
				});

		assertThat(outcome).isEqualTo(new BatchOutcome<>("credited", List.of(0, 3), List.of(1, 2)));
		assertThat(seenByWork).containsExactly(List.of(0, 3));
		assertThat(this.listener.hits).hasValue(2);
		assertThat(row("a").get(0)).isEqualTo(ClaimStatus.SUCCEEDED.code());
		assertThat(row("c").get(0)).isEqualTo(ClaimStatus.SUCCEEDED.code());
	}

	@Test
	void aFailedBatchRollsBackEveryClaimAndAFailedRowIsReclaimedInTheNextOne() throws Throwable {
		new FailureRecorder(this.store, new DataSourceTransactionManager(this.dataSource)).record(request("f"), 1,
				new IllegalStateException("dead-lettered"));
		assertThatThrownBy(() -> this.executor.executeBatch(List.of(request("x"), request("y")), (claimed) -> {
			throw new IllegalStateException("batch failed");
		})).hasMessage("batch failed");
		assertThat(count(this.table.value())).as("only the FAILED row").isOne();

		BatchOutcome<Integer> outcome = this.executor.executeBatch(List.of(request("x"), request("f"), request("y")),
				List::size);
		assertThat(outcome.claimed()).containsExactly(0, 1, 2);
		assertThat(this.listener.reclaimed).hasValue(1);
	}

	@ParameterizedTest(name = "holder commits: {0}")
	@org.junit.jupiter.params.provider.ValueSource(booleans = { true, false })
	void aBatchMeetingAConcurrentClaimOfOneOfItsKeysWaitsForItsOutcome(boolean holderCommits) throws Throwable {
		this.executor.execute(request("old"), () -> null);
		HeldClaim holder = new HeldClaim("k2", holderCommits);
		List<Thread> threads = new ArrayList<>();
		CompletableFuture<BatchOutcome<List<Integer>>> batch = startThread("batch-claim", threads,
				() -> this.executor.executeBatch(List.of(request("k1"), request("k2"), request("old"), request("k3")),
						(claimed) -> claimed));
		holder.releaseAfterLockWaits(threads);

		BatchOutcome<List<Integer>> outcome = batch.get(60, TimeUnit.SECONDS);
		if (holderCommits) {
			assertThat(outcome.claimed()).containsExactly(0, 3);
			assertThat(outcome.hits()).containsExactly(1, 2);
		}
		else {
			assertThat(outcome.claimed()).containsExactly(0, 1, 3);
			assertThat(outcome.hits()).containsExactly(2);
		}
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE status = 1", Integer.class))
			.as("one SUCCEEDED row per key").isEqualTo(4);
	}

	@Test
	void aReadUncommittedBatchWaitsForAnUncommittedClaimInsteadOfCountingItAsAHit() throws Throwable {
		HeldClaim holder = new HeldClaim("k2", false);
		TransactionTemplate readUncommitted = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		readUncommitted.setIsolationLevel(TransactionTemplate.ISOLATION_READ_UNCOMMITTED);
		List<Thread> threads = new ArrayList<>();
		CompletableFuture<BatchOutcome<List<Integer>>> batch = startThread("read-uncommitted-batch", threads,
				() -> readUncommitted.execute((status) -> {
					try {
						return this.executor.executeBatch(List.of(request("k1"), request("k2")), (claimed) -> claimed);
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				}));
		holder.releaseAfterLockWaits(threads);

		assertThat(batch.get(60, TimeUnit.SECONDS).claimed()).as("k2's holder rolled back").containsExactly(0, 1);
	}

	/** A batch whose keys are mostly hits, as after a rebalance: the hits must not lock rows or gaps of the scope. */
	@Test
	void aBatchOfHitsWaitsForNoClaimOfAnotherKey() throws Throwable {
		this.executor.executeBatch(evenKeys(), List::size);
		HeldClaim unrelated = new HeldClaim("k07", true);
		DataSource impatient = TestDatabases.pool(connection(), lockTimeoutSql());
		try {
			TransactionalClaimExecutor impatientExecutor = new TransactionalClaimExecutor(new JdbcClaimStore(impatient,
					this.table, expectedDialect(), Clock.systemUTC()), new DataSourceTransactionManager(impatient),
					this.listener, 0);
			List<ClaimRequest> redelivered = new ArrayList<>(evenKeys());
			redelivered.add(request("k99"));

			BatchOutcome<List<Integer>> outcome = impatientExecutor.executeBatch(redelivered, (claimed) -> claimed);

			assertThat(outcome.claimed()).containsExactly(12);
			assertThat(outcome.hits()).hasSize(12);
		}
		finally {
			unrelated.releaseAfterLockWaits(List.of());
			((AutoCloseable) impatient).close();
		}
	}

	/** While a batch of mostly hits is still open, another consumer's claim of a new key goes through at once. */
	@Test
	void aBatchOfHitsHeldOpenBlocksNoClaimOfAnotherKey() throws Throwable {
		this.executor.executeBatch(evenKeys(), List::size);
		List<ClaimRequest> redelivered = new ArrayList<>(evenKeys());
		redelivered.add(request("k99"));
		CountDownLatch holding = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<BatchOutcome<List<Integer>>> batch = startThread("open-batch", new ArrayList<>(),
				() -> this.executor.executeBatch(redelivered, (claimed) -> {
					holding.countDown();
					release.await();
					return claimed;
				}));
		DataSource impatient = TestDatabases.pool(connection(), lockTimeoutSql());
		try {
			assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
			TransactionalClaimExecutor impatientExecutor = new TransactionalClaimExecutor(new JdbcClaimStore(impatient,
					this.table, expectedDialect(), Clock.systemUTC()), new DataSourceTransactionManager(impatient),
					this.listener, 0);

			assertThat(impatientExecutor.execute(request("k07"), () -> "between two hits of the open batch"))
				.isEqualTo(new ClaimOutcome.Processed<>("between two hits of the open batch", false));
		}
		finally {
			release.countDown();
			((AutoCloseable) impatient).close();
		}
		assertThat(batch.get(30, TimeUnit.SECONDS).claimed()).containsExactly(12);
	}

	@Test
	void aBatchWithARepeatedKeyIsRefusedByTheStore() {
		assertThatThrownBy(() -> this.transactions.execute((status) -> this.store
			.claimAll(List.of(request("a"), request("b"), request("a")))))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("distinct keys");
		assertThat(count(this.table.value())).isZero();
	}

	/** Keys k00, k02, ... k22. */
	private List<ClaimRequest> evenKeys() {
		List<ClaimRequest> keys = new ArrayList<>();
		for (int i = 0; i < 24; i += 2) {
			keys.add(request(String.format("k%02d", i)));
		}
		return keys;
	}

	@Test
	void aBatchLargerThanOneStatementIsClaimedWhole() throws Throwable {
		List<ClaimRequest> requests = new ArrayList<>();
		for (int i = 0; i < 1_100; i++) {
			requests.add(request("bulk-" + i));
		}
		assertThat(this.executor.executeBatch(requests, List::size).value()).isEqualTo(1_100);
		BatchOutcome<Integer> again = this.executor.executeBatch(requests, List::size);
		assertThat(again.claimed()).isEmpty();
		assertThat(again.hits()).hasSize(1_100);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE status = 1", Integer.class))
			.isEqualTo(1_100);
	}

	@Test
	void aLeasedClaimRunsTheWorkOnceWithTheKeyAtHand() throws Throwable {
		LeasedClaimExecutor leased = leasedExecutor();
		List<String> keysSeen = new ArrayList<>();
		ClaimOutcome<String> first = leased.execute(request("sms-1"), Duration.ofMinutes(1), () -> {
			keysSeen.add(IdempotencyContext.currentKey());
			return "sent";
		});
		ClaimOutcome<String> second = leased.execute(request("sms-1"), Duration.ofMinutes(1), () -> "sent again");

		assertThat(first).isEqualTo(new ClaimOutcome.Processed<>("sent", false));
		assertThat(second).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(keysSeen).containsExactly("sms-1");
		assertThat(IdempotencyContext.current()).isEmpty();
		assertThat(row("sms-1").get(0)).isEqualTo(ClaimStatus.SUCCEEDED.code());
	}

	@Test
	void aLiveLeaseHeldElsewhereIsInProgressNotAHit() {
		this.transactions.executeWithoutResult((status) -> assertThat(
				systemClockStore().claimLease(request("sms-1"), Duration.ofMinutes(5))).isInstanceOf(LeaseResult.Acquired.class));

		assertThatThrownBy(() -> leasedExecutor().execute(request("sms-1"), Duration.ofMinutes(1), () -> "sent"))
			.isInstanceOf(ClaimInProgressException.class)
			.hasMessageContaining("being processed by another consumer");
		assertThat(this.listener.hits).hasValue(0);
	}

	@Test
	void anExpiredLeaseIsTakenOverByExactlyOneConsumer() throws Exception {
		this.transactions.executeWithoutResult((status) -> this.leases.claimLease(request("sms-1"), Duration.ofMinutes(1)));
		LeasedClaimExecutor leased = leasedExecutor();
		int consumers = 6;
		CyclicBarrier start = new CyclicBarrier(consumers);
		AtomicInteger calls = new AtomicInteger();
		List<CompletableFuture<String>> results = new ArrayList<>();
		for (int i = 0; i < consumers; i++) {
			results.add(CompletableFuture.supplyAsync(() -> {
				try {
					start.await(30, TimeUnit.SECONDS);
					return leased.execute(request("sms-1"), Duration.ofMinutes(1), calls::incrementAndGet).getClass()
						.getSimpleName();
				}
				catch (ClaimInProgressException ex) {
					return "InProgress";
				}
				catch (Throwable ex) {
					throw new IllegalStateException(ex);
				}
			}));
		}
		List<String> outcomes = new ArrayList<>();
		for (CompletableFuture<String> result : results) {
			outcomes.add(result.get(60, TimeUnit.SECONDS));
		}
		assertThat(calls).hasValue(1);
		assertThat(outcomes).containsOnlyOnce("Processed").doesNotContainNull();
		assertThat(row("sms-1")).containsExactly(ClaimStatus.SUCCEEDED.code(), 2, "orders", 2, 42L);
	}

	@Test
	void aFailedLeasedWorkGivesItsLeaseUpSoThatARetryClaimsAtOnce() throws Throwable {
		LeasedClaimExecutor leased = leasedExecutor();
		assertThatThrownBy(() -> leased.execute(request("sms-1"), Duration.ofMinutes(10), () -> {
			throw new java.io.IOException("gateway timeout");
		})).hasMessage("gateway timeout");
		assertThat(this.jdbc.queryForObject("SELECT last_error FROM " + this.table, String.class))
			.isEqualTo("java.io.IOException: gateway timeout");

		assertThat(leased.execute(request("sms-1"), Duration.ofMinutes(10), () -> "sent"))
			.isEqualTo(new ClaimOutcome.Processed<>("sent", true));
		assertThat(row("sms-1").subList(0, 2)).containsExactly(ClaimStatus.SUCCEEDED.code(), 2);
		// each committed lease is one attempt of the side effect, counted when the lease commits (no rollback undoes it)
		assertThat(this.listener.claimed).hasValue(1);
		assertThat(this.listener.reclaimed).hasValue(1);
	}

	@Test
	void aConsumerWhoseLeaseWasTakenOverCannotCompleteIt() {
		JdbcLeasedClaimStore later = systemClockStore();
		this.transactions.executeWithoutResult((status) -> {
			this.leases.claimLease(request("sms-1"), Duration.ofMinutes(1));
		});
		LeaseResult takenOver = this.transactions.execute((status) -> later.claimLease(request("sms-1"), Duration.ofMinutes(1)));
		assertThat(takenOver).isInstanceOfSatisfying(LeaseResult.Acquired.class,
				(acquired) -> assertThat(acquired.attempt()).isEqualTo(2));
		Boolean staleCompletion = this.transactions.execute((status) -> this.leases.completeLease(request("sms-1"), 1));
		Boolean currentCompletion = this.transactions.execute((status) -> later.completeLease(request("sms-1"), 2));
		assertThat(staleCompletion).isFalse();
		assertThat(currentCompletion).isTrue();
	}

	private JdbcLeasedClaimStore systemClockStore() {
		return new JdbcLeasedClaimStore(this.dataSource, this.table, expectedDialect(), Clock.systemUTC());
	}

	private LeasedClaimExecutor leasedExecutor() {
		return new LeasedClaimExecutor(systemClockStore(), new DataSourceTransactionManager(this.dataSource),
				this.listener, 5);
	}

	@Test
	void theShippedTableIsValid() {
		assertThat(new SchemaValidator(this.dataSource, this.table, expectedDialect(), KeyValidator.DEFAULT_MAX_LENGTH)
			.problems()).isEmpty();
	}

	@Test
	void theStartupCheckReportsAMissingTable() {
		SchemaValidator validator = new SchemaValidator(this.dataSource, new TableName("no_such_claims"),
				expectedDialect(), KeyValidator.DEFAULT_MAX_LENGTH);
		assertThatThrownBy(validator::validate).isInstanceOf(SchemaValidator.InvalidSchemaException.class)
			.hasMessageContaining("table no_such_claims does not exist")
			.hasMessageContaining("CREATE TABLE IF NOT EXISTS no_such_claims")
			.hasMessageContaining("idempotent.jdbc.schema-validation=warn");
	}

	@Test
	void theStartupCheckReportsAMissingUniqueIndexAndAShortKeyColumn() {
		String ddl = new SchemaInitializer(this.dataSource, this.table, expectedDialect()).ddl();
		TableName weak = new TableName(this.table.value() + "_weak");
		String withoutUnique = ddl.replace(this.table.value(), weak.value())
			.replaceAll(",\\s*(UNIQUE KEY|CONSTRAINT) uk_\\w+ (UNIQUE )?\\(scope, idempotency_key\\)", "");
		try {
			executeDdl(withoutUnique.replaceAll("(?m)^--.*$", ""));
			assertThat(new SchemaValidator(this.dataSource, weak, expectedDialect(), 300).problems()).containsExactly(
					"no UNIQUE index covers exactly (scope, idempotency_key): duplicates would not be detected",
					"column idempotency_key holds " + keyColumnSize() + " characters, less than idempotent.max-key-length=300");
		}
		finally {
			dropTable(weak.value());
		}
	}

	@Test
	void aHitWhosePayloadDiffersFromTheFirstIsAConflictAndStillSkipped() throws Throwable {
		TransactionalClaimExecutor fingerprinting = fingerprintingExecutor();
		AtomicInteger runs = new AtomicInteger();
		try (LogRecorder conflicts = LogRecorder.of(ConflictLog.LOGGER_NAME)) {
			fingerprinting.execute(request("order-1001", "amount=10"), runs::incrementAndGet);
			ClaimOutcome<Integer> same = fingerprinting.execute(request("order-1001", "amount=10"), runs::incrementAndGet);
			ClaimOutcome<Integer> other = fingerprinting.execute(request("order-1001", "amount=99"), runs::incrementAndGet);

			assertThat(same).isInstanceOf(ClaimOutcome.Skipped.class);
			assertThat(other).isInstanceOfSatisfying(ClaimOutcome.Skipped.class, (skipped) -> assertThat(
					skipped.hit().fingerprint()).isEqualTo(PayloadFingerprint.of("amount=10")));
			assertThat(runs).hasValue(1);
			assertThat(this.listener.hits).hasValue(2);
			assertThat(this.listener.conflicts).hasValue(1);
			assertThat(conflicts.messages(Level.WARN)).singleElement().asString()
				.contains("scope=ledger", "key=or******01#", "source=orders-2@42",
						"payload=" + PayloadFingerprint.of("amount=99").substring(0, 12) + "...",
						"first_payload=" + PayloadFingerprint.of("amount=10").substring(0, 12) + "...")
				.doesNotContain("order-1001");
		}
		assertThat(this.jdbc.queryForObject("SELECT payload_fingerprint FROM " + this.table, String.class))
			.isEqualTo(PayloadFingerprint.of("amount=10"));
	}

	@Test
	void batchHitsReadTheStoredFingerprintBackAndRepeatsCompareWithTheirFirst() throws Throwable {
		TransactionalClaimExecutor fingerprinting = fingerprintingExecutor();
		fingerprinting.execute(request("b", "v1"), () -> null);

		BatchOutcome<Integer> outcome = fingerprinting.executeBatch(List.of(request("a", "v1"), request("b", "v2"),
				request("a", "v3"), request("c", "v1"), request("b", "v2")), List::size);

		assertThat(outcome).isEqualTo(new BatchOutcome<>(2, List.of(0, 3), List.of(1, 2, 4)));
		assertThat(this.listener.hits).hasValue(3);
		assertThat(this.listener.conflicts).as("b with v2 (stored: v1), the repeat of a with v3 (first: v1); not the repeat of b with v2 (first: v2)")
			.hasValue(2);
		assertThat(this.jdbc.queryForList("SELECT payload_fingerprint FROM " + this.table
				+ " ORDER BY idempotency_key", String.class)).containsExactly(PayloadFingerprint.of("v1"),
						PayloadFingerprint.of("v1"), PayloadFingerprint.of("v1"));
	}

	@ParameterizedTest(name = "fingerprints: {0}")
	@org.junit.jupiter.params.provider.ValueSource(booleans = { false, true })
	void aHitCarriesTheSourceItsKeyWasClaimedFromAlsoInABatch(boolean fingerprints) throws Throwable {
		JdbcClaimStore store = fingerprints ? fingerprintingStore() : this.store;
		DeliverySource first = new DeliverySource("orders", 1, 7);
		DeliverySource again = new DeliverySource("orders", 1, 7);
		DeliverySource other = new DeliverySource("orders-replay", 3, 9);
		this.transactions.executeWithoutResult((status) -> store.claim(new ClaimRequest("ledger", "s", first, "fp")));
		this.transactions.executeWithoutResult((status) -> store.claim(new ClaimRequest("ledger", "m", first, "fp")));

		ClaimRequest redelivery = new ClaimRequest("ledger", "s", again, "fp");
		ClaimResult single = this.transactions.execute((status) -> store.claim(redelivery));
		List<ClaimResult> batch = this.transactions.execute((status) -> store.claimAll(List.of(
				new ClaimRequest("ledger", "m", other, "fp"), new ClaimRequest("ledger", "n", other, "fp"),
				new ClaimRequest("ledger", "s", other, "fp"))));

		assertThat(single).isEqualTo(new ClaimResult.Hit(ClaimStatus.SUCCEEDED, FIXED_NOW, fingerprints ? "fp" : null, first));
		assertThat(HitOrigin.of(redelivery, (ClaimResult.Hit) single)).isEqualTo(HitOrigin.REDELIVERY);
		assertThat(batch).containsExactly(new ClaimResult.Hit(ClaimStatus.SUCCEEDED, FIXED_NOW, fingerprints ? "fp" : null, first),
				new ClaimResult.Claimed(false), new ClaimResult.Hit(ClaimStatus.SUCCEEDED, FIXED_NOW, fingerprints ? "fp" : null, first));
		assertThat(HitOrigin.of(new ClaimRequest("ledger", "m", other), (ClaimResult.Hit) batch.get(0)))
			.isEqualTo(HitOrigin.RESEND);
	}

	@Test
	void aLeasedHitCarriesTheSourceItsKeyWasLeasedFor() {
		DeliverySource first = new DeliverySource("sms", 2, 11);
		ClaimRequest original = new ClaimRequest("ledger", "sms-src", first);
		this.transactions.executeWithoutResult((status) -> this.leases.claimLease(original, Duration.ofMinutes(1)));
		this.transactions.executeWithoutResult((status) -> this.leases.completeLease(original, 1));

		ClaimRequest redelivery = new ClaimRequest("ledger", "sms-src", new DeliverySource("sms", 2, 11));
		LeaseResult result = this.transactions.execute((status) -> this.leases.claimLease(redelivery, Duration.ofMinutes(1)));

		assertThat(result).isInstanceOfSatisfying(LeaseResult.Done.class, (done) -> {
			assertThat(done.hit().source()).isEqualTo(first);
			assertThat(HitOrigin.of(redelivery, done.hit())).isEqualTo(HitOrigin.REDELIVERY);
		});
	}

	@Test
	void aHitOfAReclaimedKeyCarriesTheSourceOfTheDeliveryThatReclaimedIt() throws Throwable {
		new FailureRecorder(this.store, new DataSourceTransactionManager(this.dataSource)).record(request("f"), 1,
				new IllegalStateException("dead-lettered"));
		DeliverySource replay = new DeliverySource("orders.DLT", 0, 5);
		this.executor.execute(new ClaimRequest("ledger", "f", replay), () -> null);

		ClaimResult hit = this.transactions.execute((status) -> this.store.claim(request("f")));

		assertThat(hit).isInstanceOfSatisfying(ClaimResult.Hit.class, (h) -> assertThat(h.source()).isEqualTo(replay));
	}

	@Test
	void aReclaimedRowTakesTheFingerprintOfTheReplayedPayload() throws Throwable {
		TransactionalClaimExecutor fingerprinting = fingerprintingExecutor();
		new FailureRecorder(fingerprintingStore(), new DataSourceTransactionManager(this.dataSource))
			.record(request("f", "old"), 3, new IllegalStateException("boom"));

		assertThat(fingerprinting.execute(request("f", "fixed"), () -> "ok")).isEqualTo(new ClaimOutcome.Processed<>("ok", true));
		fingerprinting.execute(request("f", "fixed"), () -> "again");

		assertThat(this.listener.conflicts).hasValue(0);
		assertThat(this.jdbc.queryForObject("SELECT payload_fingerprint FROM " + this.table, String.class))
			.isEqualTo(PayloadFingerprint.of("fixed"));
	}

	@Test
	void aTableWithoutTheFingerprintColumnWorksWithFingerprintsOffAndIsRefusedWithThemOn() throws Throwable {
		TableName old = new TableName(this.table.value() + "_old");
		String ddl = new SchemaInitializer(this.dataSource, old, expectedDialect()).ddl()
			.replaceAll("(?m)^--.*$", "")
			.replaceAll("(?m)^\\s*payload_fingerprint .*$", "");
		try {
			executeDdl(ddl);
			DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.dataSource);
			TransactionalClaimExecutor plain = new TransactionalClaimExecutor(
					new JdbcClaimStore(this.dataSource, old, expectedDialect(), Clock.systemUTC()), transactionManager,
					this.listener, 5);
			plain.execute(request("order-1", "v1"), () -> null);
			plain.executeBatch(List.of(request("order-1", "v2"), request("order-2", "v1")), List::size);
			assertThat(this.listener.claimed).hasValue(2);
			assertThat(this.listener.hits).hasValue(1);
			assertThat(new SchemaValidator(this.dataSource, old, expectedDialect(), KeyValidator.DEFAULT_MAX_LENGTH, false)
				.problems()).isEmpty();

			SchemaValidator fingerprinting = new SchemaValidator(this.dataSource, old, expectedDialect(),
					KeyValidator.DEFAULT_MAX_LENGTH, true);
			String alter = "ALTER TABLE " + old + " ADD COLUMN payload_fingerprint VARCHAR(64) NULL";
			assertThatThrownBy(fingerprinting::validate).isInstanceOf(SchemaValidator.InvalidSchemaException.class)
				.hasMessageContaining("column payload_fingerprint is missing")
				.hasMessageContaining(alter);
			this.jdbc.execute(alter);
			assertThat(fingerprinting.problems()).isEmpty();
		}
		finally {
			dropTable(old.value());
		}
	}

	private JdbcClaimStore fingerprintingStore() {
		return new JdbcClaimStore(this.dataSource, this.table, expectedDialect(),
				Clock.fixed(FIXED_NOW, ZoneId.of("Asia/Tokyo")), true);
	}

	private TransactionalClaimExecutor fingerprintingExecutor() {
		return new TransactionalClaimExecutor(fingerprintingStore(), new DataSourceTransactionManager(this.dataSource),
				this.listener, 5);
	}

	protected ClaimRequest request(String key, String payload) {
		return new ClaimRequest("ledger", key, new DeliverySource("orders", 2, 42), PayloadFingerprint.of(payload));
	}

	/** The size of the key column in the shipped DDL, in the unit the database counts. */
	protected int keyColumnSize() {
		return KeyValidator.DEFAULT_MAX_LENGTH;
	}

	@Test
	void aClaimOutsideATransactionIsRefused() {
		assertThatThrownBy(() -> this.store.claim(request("order-1"))).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("inside a transaction");
		assertThat(count(this.table.value())).isZero();
	}

	/** Run claiming work on a thread of its own, so that its lock waits can be awaited. */
	private static <T> CompletableFuture<T> startThread(String name, List<Thread> threads, ClaimingWork<T> work) {
		CompletableFuture<T> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				result.complete(work.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		}, name);
		thread.start();
		threads.add(thread);
		return result;
	}

	/** Work of {@link #startThread}. */
	@FunctionalInterface
	private interface ClaimingWork<T> {

		T call() throws Throwable;

	}

	/** A claim of one key that another transaction holds open until released; it then commits or rolls back. */
	private final class HeldClaim {

		private final CountDownLatch release = new CountDownLatch(1);

		private final CompletableFuture<Void> done;

		HeldClaim(String key, boolean commits) throws InterruptedException {
			CountDownLatch holding = new CountDownLatch(1);
			this.done = CompletableFuture.runAsync(() -> {
				try {
					AbstractClaimStoreContractTest.this.executor.execute(request(key), () -> {
						holding.countDown();
						this.release.await();
						if (!commits) {
							throw new IllegalStateException("holder rolls back");
						}
						return null;
					});
				}
				catch (Throwable ex) {
					assertThat(ex).hasMessage("holder rolls back");
				}
			});
			assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
		}

		/** Let the holder end once the threads wait on its lock (released even if they never do), and wait for it. */
		void releaseAfterLockWaits(List<Thread> waiters) throws Exception {
			try {
				awaitLockWaits(AbstractClaimStoreContractTest.this.jdbc, waiters);
			}
			finally {
				this.release.countDown();
			}
			this.done.get(30, TimeUnit.SECONDS);
		}

	}

	protected void awaitCount(JdbcTemplate jdbc, String sql, int atLeast) {
		await().atMost(java.time.Duration.ofSeconds(20))
			.until(() -> jdbc.queryForObject(sql, Integer.class), (n) -> n != null && n >= atLeast);
	}

	private CompletableFuture<ClaimOutcome<String>> claimBothInOrder(TransactionalClaimExecutor executor,
			ClaimStore store, String firstKey, String secondKey, CyclicBarrier barrier) {
		AtomicInteger attempt = new AtomicInteger();
		return CompletableFuture.supplyAsync(() -> {
			try {
				return executor.execute(request(firstKey), () -> {
					if (attempt.incrementAndGet() == 1) {
						barrier.await(30, TimeUnit.SECONDS);
					}
					store.claim(request(secondKey));
					return firstKey + secondKey;
				});
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	private static ClaimOutcome<Integer> claimAndRun(TransactionalClaimExecutor executor, String key,
			AtomicInteger runs) {
		try {
			return executor.execute(new ClaimRequest("ledger", key, null), runs::incrementAndGet);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Passes claims through, counting the transient failures. */
	private static final class CountingStore implements ClaimStore {

		final AtomicInteger transientFailures = new AtomicInteger();

		private final ClaimStore delegate;

		CountingStore(ClaimStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public ClaimResult claim(ClaimRequest request) {
			try {
				return this.delegate.claim(request);
			}
			catch (TransientClaimException ex) {
				this.transientFailures.incrementAndGet();
				throw ex;
			}
		}

		@Override
		public ClaimCheckpoint checkpoint() {
			return this.delegate.checkpoint();
		}

		@Override
		public boolean isConflict(Throwable failure) {
			return this.delegate.isConflict(failure);
		}

		@Override
		public void markFailed(ClaimRequest request, int attempts, String lastError) {
			this.delegate.markFailed(request, attempts, lastError);
		}

	}

	protected ClaimRequest request(String key) {
		return new ClaimRequest("ledger", key, new DeliverySource("orders", 2, 42));
	}

	private List<Object> row(String key) {
		return this.jdbc.queryForObject("SELECT status, attempts, source_topic, source_partition, source_offset FROM "
				+ this.table + " WHERE scope = 'ledger' AND idempotency_key = ?", (rs, n) -> List.of(rs.getInt(1),
						rs.getInt(2), rs.getString(3), rs.getInt(4), rs.getLong(5)), key);
	}

	protected int count(String tableName) {
		Integer count = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + tableName, Integer.class);
		return (count != null) ? count : -1;
	}

	/** Run a DDL script of one or more statements, as the schema initializer does. */
	void executeDdl(String script) {
		this.jdbc.execute((org.springframework.jdbc.core.ConnectionCallback<Object>) (connection) -> {
			org.springframework.jdbc.datasource.init.ScriptUtils.executeSqlScript(connection,
					new org.springframework.core.io.ByteArrayResource(
							script.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
			return null;
		});
	}

}
