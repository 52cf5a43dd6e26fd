package dev.idempotent.fastpath;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The executor with a fast path (an in-memory one, on a real claim store on H2): a key the fast path knows is a
 * hit without a connection or a transaction; keys are remembered only after their transaction committed, never
 * a FAILED one; an error or a pause sends the key to the database; a batch claims only what the fast path did not
 * know.
 */
class FastPathExecutorTest {

	private final CountingDataSource database = new CountingDataSource(TestDatabases.h2());

	private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.database);

	private final JdbcClaimStore store = new JdbcClaimStore(this.database,
			TestDatabases.createClaimTable(this.database, SqlDialect.H2), SqlDialect.H2, Clock.systemUTC());

	private final RecordingClaimListener claims = new RecordingClaimListener();

	private final AtomicInteger fastPathHits = new AtomicInteger();

	private final InMemoryFastPath fastPath = new InMemoryFastPath();

	private final RecordingFastPathListener fastPathListener = new RecordingFastPathListener();

	private final TransactionalClaimExecutor executor = executor(Duration.ofSeconds(30));

	@Test
	void aKeyTheFastPathKnowsIsAHitWithoutAConnection() throws Throwable {
		ClaimRequest request = request("order-1", 7);
		this.executor.execute(request, () -> "credited");
		assertThat(this.fastPath.knowsKey("fast", "order-1")).as("remembered after the commit").isTrue();
		int connections = this.database.connections.get();
		List<String> ran = new ArrayList<>();

		ClaimOutcome<String> outcome = this.executor.execute(request("order-1", 8), () -> {
			ran.add("again");
			return "credited again";
		});

		assertThat(outcome).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(((ClaimOutcome.Skipped<String>) outcome).fromFastPath()).as("told as answered by the fast path")
			.isTrue();
		ClaimResult.Hit hit = ((ClaimOutcome.Skipped<String>) outcome).hit();
		assertThat(hit.source()).as("the first delivery's source, from the fast path")
			.isEqualTo(new DeliverySource("orders", 0, 7));
		assertThat(ran).isEmpty();
		assertThat(this.database.connections).as("no connection, no transaction").hasValue(connections);
		assertThat(this.fastPathHits).hasValue(1);
		assertThat(this.claims.hits).as("counted as a hit too").hasValue(1);
		assertThat(this.fastPathListener.known).hasValue(1);
	}

	@Test
	void inShadowModeTheFastPathIsNeitherAskedNorTold() throws Throwable {
		this.executor.execute(request("order-s", 1), () -> "credited");
		assertThat(this.fastPath.knowsKey("fast", "order-s")).isTrue();
		TransactionalClaimExecutor shadow = executor(Duration.ofSeconds(30));
		shadow.setShadow(true);
		int remembered = this.fastPath.remembered.size();

		ClaimOutcome<String> outcome = shadow.execute(request("order-s", 2), () -> "credited again");
		shadow.execute(request("order-t", 1), () -> "credited");

		assertThat(shadow.hasFastPath()).as("not asked in shadow mode").isFalse();
		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>("credited again", false));
		assertThat(this.fastPathHits).hasValue(0);
		assertThat(this.claims.hits).as("the database's hit, counted").hasValue(1);
		assertThat(this.fastPath.remembered).as("nor told: a key whose outputs were stored before must stay out of it")
			.hasSize(remembered);
	}

	@Test
	void aKeyIsRememberedOnlyAfterItsTransactionCommitted() {
		assertThatThrownBy(() -> this.executor.execute(request("order-2", 1), () -> {
			assertThat(this.fastPath.knowsKey("fast", "order-2")).as("not before the commit").isFalse();
			throw new IllegalStateException("the work fails");
		})).hasMessage("the work fails");

		assertThat(this.fastPath.remembered).as("a rolled-back claim is not remembered").isEmpty();
	}

	@Test
	void aClaimInAnOuterTransactionThatRollsBackIsNotRemembered() {
		TransactionTemplate outer = new TransactionTemplate(this.transactionManager);
		outer.executeWithoutResult((status) -> {
			call(() -> this.executor.execute(request("order-3", 1), () -> null));
			status.setRollbackOnly();
		});

		assertThat(this.fastPath.remembered).isEmpty();
	}

	@Test
	void aFailedRowIsNeverRememberedAndItsReplayIsClaimedInTheDatabase() throws Throwable {
		ClaimRequest request = request("order-4", 1);
		assertThatThrownBy(() -> this.executor.execute(request, () -> {
			throw new IllegalStateException("poison");
		}));
		new FailureRecorder(this.store, this.transactionManager).record(request, 3, new IllegalStateException("poison"));
		assertThat(this.fastPath.remembered).isEmpty();

		ClaimOutcome<String> replay = this.executor.execute(request, () -> "processed at last");

		assertThat(replay).isEqualTo(new ClaimOutcome.Processed<>("processed at last", true));
		assertThat(this.fastPath.knowsKey("fast", "order-4")).as("remembered once the reclaim committed").isTrue();
	}

	@Test
	void aHitTheDatabaseFoundOnASucceededRowIsRememberedWithTheStoredSource() throws Throwable {
		this.executor.execute(request("order-5", 1), () -> null);
		this.fastPath.keys.clear(); // Redis flushed
		this.fastPath.remembered.clear();

		ClaimOutcome<Object> outcome = this.executor.execute(request("order-5", 2), () -> null);

		assertThat(outcome).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(((ClaimOutcome.Skipped<Object>) outcome).fromFastPath()).as("told as found by the database").isFalse();
		assertThat(this.fastPathHits).as("found by the database").hasValue(0);
		assertThat(this.fastPath.remembered).singleElement()
			.satisfies((claim) -> assertThat(claim.request().source()).isEqualTo(new DeliverySource("orders", 0, 1)));
	}

	@Test
	void aKeyKeptOutOfTheFastPathIsNotRemembered() throws Throwable {
		ClaimRequest request = request("order-6", 1);
		this.executor.execute(request, () -> {
			DatabaseOnlyKeys.exclude(request);
			return null;
		});
		this.executor.execute(request("order-7", 1), () -> null);

		assertThat(this.fastPath.remembered).extracting((claim) -> claim.request().key()).containsExactly("order-7");
	}

	@Test
	void anErrorSendsTheKeyToTheDatabaseAndPausesTheFastPath() throws Throwable {
		this.executor.execute(request("order-8", 1), () -> null);
		this.fastPath.failing = true;
		int lookups = this.fastPath.lookups.get();

		ClaimOutcome<Object> first = this.executor.execute(request("order-8", 2), () -> "must not run");
		ClaimOutcome<Object> second = this.executor.execute(request("order-9", 1), () -> "new");

		assertThat(first).as("the database found the hit").isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(second).isEqualTo(new ClaimOutcome.Processed<>("new", false));
		assertThat(this.fastPath.lookups.get() - lookups).as("paused after the first error").isEqualTo(1);
		assertThat(this.fastPathListener.failed).hasValue(1);
		assertThat(this.fastPathListener.bypassed).hasValue(1);
	}

	@Test
	void theFastPathIsAskedAgainAfterThePause() throws Throwable {
		TransactionalClaimExecutor executor = executor(Duration.ofMillis(1));
		this.fastPath.failing = true;
		long failedAt = System.nanoTime();
		executor.execute(request("order-10", 1), () -> null);
		this.fastPath.failing = false;
		// the pause is 1 ms from the failure: once it is over, the next call probes the fast path
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> System.nanoTime() - failedAt > Duration.ofMillis(2).toNanos());

		executor.execute(request("order-11", 1), () -> null);
		executor.execute(request("order-11", 2), () -> null);

		assertThat(this.fastPathHits).as("order-11 remembered and answered again").hasValue(1);
	}

	@Test
	void aBatchClaimsOnlyTheKeysTheFastPathDidNotKnow() throws Throwable {
		this.executor.execute(request("b-1", 1), () -> null);
		this.executor.execute(request("b-3", 3), () -> null);
		List<ClaimRequest> batch = List.of(request("b-1", 11), request("b-2", 12), request("b-3", 13), request("b-4", 14),
				request("b-2", 15));
		List<List<Integer>> worked = new ArrayList<>();

		BatchOutcome<String> outcome = this.executor.executeBatch(batch, (positions) -> {
			worked.add(positions);
			return "done";
		});

		assertThat(worked).as("positions in the whole batch").containsExactly(List.of(1, 3));
		assertThat(outcome.claimed()).containsExactly(1, 3);
		assertThat(outcome.hits()).as("two from the fast path, one repeat within the batch").containsExactly(0, 2, 4);
		assertThat(outcome.fastPathHits()).as("the fast path's, whose outputs need no read").containsExactly(0, 2);
		assertThat(outcome.value()).isEqualTo("done");
		assertThat(this.fastPathHits).hasValue(2);
		assertThat(this.fastPath.knowsKey("fast", "b-2")).isTrue();
		assertThat(this.fastPath.knowsKey("fast", "b-4")).isTrue();
	}

	@Test
	void aBatchTheFastPathKnowsWholeOpensNoTransaction() throws Throwable {
		this.executor.executeBatch(List.of(request("c-1", 1), request("c-2", 2)), (positions) -> null);
		int connections = this.database.connections.get();

		BatchOutcome<String> outcome = this.executor.executeBatch(List.of(request("c-2", 3), request("c-1", 4)),
				(positions) -> "must not run");

		assertThat(outcome).isEqualTo(new BatchOutcome<String>(null, List.of(), List.of(0, 1), List.of(0, 1)));
		assertThat(this.database.connections).hasValue(connections);
		assertThat(this.fastPathHits).hasValue(2);
	}

	@Test
	void theFastPathHitsOfABatchThatFailsAreNotCounted() throws Throwable {
		this.executor.execute(request("d-1", 1), () -> null);

		assertThatThrownBy(() -> this.executor.executeBatch(List.of(request("d-1", 2), request("d-2", 3)), (positions) -> {
			throw new IllegalStateException("the batch fails");
		}));

		assertThat(this.fastPathHits).as("counted when the batch is processed again").hasValue(0);
		assertThat(this.fastPath.knowsKey("fast", "d-2")).isFalse();
	}

	@Test
	void aConflictingPayloadIsToldByTheFastPathToo() throws Throwable {
		this.executor.execute(new ClaimRequest("fast", "e-1", null, "fingerprint-a"), () -> null);

		this.executor.execute(new ClaimRequest("fast", "e-1", null, "fingerprint-b"), () -> null);

		assertThat(this.fastPathHits).hasValue(1);
		assertThat(this.claims.conflicts).hasValue(1);
	}

	@Test
	void prefetchedKeysAreAnsweredWithoutALookupOfTheirOwnAndOnlyOnce() throws Throwable {
		this.executor.execute(request("p-1", 1), () -> null);
		this.executor.execute(request("p-3", 3), () -> null);
		int roundTrips = this.fastPath.roundTrips.get();
		int connections = this.database.connections.get();

		this.executor.prefetch(List.of(request("p-1", 11), request("p-2", 12), request("p-3", 13)));
		ClaimOutcome<String> first = this.executor.execute(request("p-1", 11), () -> "must not run");
		ClaimOutcome<String> second = this.executor.execute(request("p-2", 12), () -> "new");
		ClaimOutcome<String> third = this.executor.execute(request("p-3", 13), () -> "must not run");

		assertThat(this.fastPath.roundTrips.get() - roundTrips).as("one lookup for the three keys").isEqualTo(1);
		assertThat(first).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(((ClaimOutcome.Skipped<String>) third).fromFastPath()).isTrue();
		assertThat(second).as("not known: claimed in the database").isEqualTo(new ClaimOutcome.Processed<>("new", false));
		assertThat(this.database.connections.get() - connections).as("one transaction, p-2's").isEqualTo(1);
		assertThat(this.fastPathListener.known).as("p-1 and p-3, counted by the prefetch's lookup").hasValue(2);

		ClaimOutcome<String> repeat = this.executor.execute(request("p-2", 14), () -> "must not run");

		assertThat(repeat).as("asked again once its prefetched answer was used: known since p-2 committed")
			.isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(((ClaimOutcome.Skipped<String>) repeat).fromFastPath()).isTrue();
		assertThat(this.fastPath.roundTrips.get() - roundTrips).isEqualTo(2);
	}

	@Test
	void aPrefetchThatFailedKeepsNothingAndItsKeysGoToTheDatabase() throws Throwable {
		this.executor.execute(request("q-1", 1), () -> null);
		this.fastPath.failing = true;

		this.executor.prefetch(List.of(request("q-1", 2), request("q-2", 3)));
		this.fastPath.failing = false;
		int roundTrips = this.fastPath.roundTrips.get();
		ClaimOutcome<String> hit = this.executor.execute(request("q-1", 2), () -> "must not run");
		ClaimOutcome<String> claimed = this.executor.execute(request("q-2", 3), () -> "new");

		assertThat(hit).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(((ClaimOutcome.Skipped<String>) hit).fromFastPath()).as("paused: the database found it").isFalse();
		assertThat(claimed).isEqualTo(new ClaimOutcome.Processed<>("new", false));
		assertThat(this.fastPath.roundTrips.get()).as("not asked while paused").isEqualTo(roundTrips);
		assertThat(this.fastPathListener.bypassed).hasValue(2);
	}

	@Test
	void aNewPrefetchReplacesTheAnswersOfTheLastOne() throws Throwable {
		this.executor.execute(request("r-1", 1), () -> null);
		this.executor.prefetch(List.of(request("r-1", 2)));
		this.executor.prefetch(List.of(request("r-2", 3)));
		this.fastPath.keys.clear();
		int roundTrips = this.fastPath.roundTrips.get();

		ClaimOutcome<String> outcome = this.executor.execute(request("r-1", 2), () -> "must not run");

		assertThat(outcome).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(((ClaimOutcome.Skipped<String>) outcome).fromFastPath())
			.as("the first prefetch's answer is gone: asked again, unknown, found by the database").isFalse();
		assertThat(this.fastPath.roundTrips.get() - roundTrips).isEqualTo(1);
		assertThat(this.fastPathHits).hasValue(0);
	}

	@Test
	void withoutAFastPathAPrefetchDoesNothing() throws Throwable {
		TransactionalClaimExecutor plain = new TransactionalClaimExecutor(this.store, this.transactionManager,
				new FastPathCountingListener(this.claims, this.fastPathHits), 5);

		plain.prefetch(List.of(request("s-1", 1)));

		assertThat(plain.hasFastPath()).isFalse();
		assertThat(this.executor.hasFastPath()).isTrue();
		assertThat(this.fastPath.roundTrips).hasValue(0);
	}

	@Test
	void aHitOnAKeyThatNeedsTheDatabaseIsNotLearnt() throws Throwable {
		List<String> asked = new ArrayList<>();
		TransactionalClaimExecutor executor = executor(new FastPathClaims(this.fastPath, this.fastPathListener,
				Duration.ofSeconds(30), (scope, keys) -> {
					asked.addAll(keys);
					return keys.contains("h-1") ? java.util.Set.of("h-1") : java.util.Set.of();
				}));
		executor.executeBatch(List.of(request("h-1", 1), request("h-2", 2)), (positions) -> null);
		this.fastPath.keys.clear();
		assertThat(asked).as("not asked for claims, only for hits").isEmpty();

		executor.executeBatch(List.of(request("h-1", 3), request("h-2", 4), request("h-3", 5)), (positions) -> null);

		assertThat(asked).as("the hits of the transaction, in one call").containsExactlyInAnyOrder("h-1", "h-2");
		assertThat(this.fastPath.knowsKey("fast", "h-1")).as("its hits must keep reaching the database").isFalse();
		assertThat(this.fastPath.knowsKey("fast", "h-2")).as("learnt from its hit").isTrue();
		assertThat(this.fastPath.knowsKey("fast", "h-3")).as("claimed").isTrue();
	}

	@Test
	void whenItCannotBeToldWhichHitsNeedTheDatabaseNoHitIsLearnt() throws Throwable {
		TransactionalClaimExecutor executor = executor(new FastPathClaims(this.fastPath, this.fastPathListener,
				Duration.ofSeconds(30), (scope, keys) -> {
					throw new IllegalStateException("the output table does not answer");
				}));
		executor.execute(request("i-1", 1), () -> null);
		this.fastPath.keys.clear();

		executor.executeBatch(List.of(request("i-1", 2), request("i-2", 3)), (positions) -> null);

		assertThat(this.fastPath.knowsKey("fast", "i-1")).isFalse();
		assertThat(this.fastPath.knowsKey("fast", "i-2")).as("a claim is still learnt").isTrue();
	}

	@Test
	void aFastPathThatAnswersTooFewKeysIsAFailureNotACrash() throws Throwable {
		FastPath shortAnswers = new FastPath() {
			@Override
			public FastPathAnswer knows(ClaimRequest request) {
				return FastPathAnswer.UNKNOWN;
			}

			@Override
			public List<FastPathAnswer> knowAll(List<ClaimRequest> requests) {
				return List.of(FastPathAnswer.UNKNOWN);
			}

			@Override
			public @org.jspecify.annotations.Nullable Exception remember(List<RememberedClaim> claims) {
				return null;
			}
		};
		TransactionalClaimExecutor executor = executor(
				new FastPathClaims(shortAnswers, this.fastPathListener, Duration.ofSeconds(30)));

		executor.prefetch(List.of(request("j-1", 1), request("j-2", 2)));
		BatchOutcome<String> outcome = executor.executeBatch(List.of(request("j-3", 3), request("j-4", 4)),
				(positions) -> "claimed in the database");

		assertThat(outcome.claimed()).containsExactly(0, 1);
		assertThat(this.fastPathListener.failed).hasValue(2);
	}

	@Test
	void aFastPathListenerThatThrowsFailsNeitherALookupNorACommittedClaim() throws Throwable {
		FastPathListener throwing = new FastPathListener() {
			@Override
			public void onLookup(String scope, int known, int unknown, int failed, Duration latency) {
				throw new IllegalStateException("a broken meter");
			}

			@Override
			public void onRemember(int keys, @org.jspecify.annotations.Nullable Exception error) {
				throw new IllegalStateException("a broken meter");
			}
		};
		TransactionalClaimExecutor executor = executor(
				new FastPathClaims(this.fastPath, throwing, Duration.ofSeconds(30)));

		ClaimOutcome<String> first = executor.execute(request("k-1", 1), () -> "credited");
		ClaimOutcome<String> again = executor.execute(request("k-1", 2), () -> "must not run");

		assertThat(first).isEqualTo(new ClaimOutcome.Processed<>("credited", false));
		assertThat(((ClaimOutcome.Skipped<String>) again).fromFastPath()).isTrue();
	}

	private TransactionalClaimExecutor executor(FastPathClaims fastPath) {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(this.store, this.transactionManager,
				new FastPathCountingListener(this.claims, this.fastPathHits), 5);
		executor.setFastPath(fastPath);
		return executor;
	}

	private TransactionalClaimExecutor executor(Duration pause) {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(this.store, this.transactionManager,
				new FastPathCountingListener(this.claims, this.fastPathHits), 5);
		executor.setFastPath(new FastPathClaims(this.fastPath, this.fastPathListener, pause));
		return executor;
	}

	private static ClaimRequest request(String key, long offset) {
		return new ClaimRequest("fast", key, new DeliverySource("orders", 0, offset));
	}

	private static <T> T call(dev.idempotent.claim.ClaimedWork<T> work) {
		try {
			return work.run();
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Counts every connection taken: a transaction takes one. */
	static final class CountingDataSource extends DelegatingDataSource {

		final AtomicInteger connections = new AtomicInteger();

		CountingDataSource(DataSource target) {
			super(target);
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.connections.incrementAndGet();
			return super.getConnection();
		}

	}

	/** Passes everything to a recording listener, and counts the fast path's hits on their own. */
	static final class FastPathCountingListener implements dev.idempotent.metrics.ClaimListener {

		private final RecordingClaimListener delegate;

		private final AtomicInteger fastPathHits;

		FastPathCountingListener(RecordingClaimListener delegate, AtomicInteger fastPathHits) {
			this.delegate = delegate;
			this.fastPathHits = fastPathHits;
		}

		@Override
		public void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
			this.delegate.onClaimed(request, reclaimed, latency);
		}

		@Override
		public void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
			this.delegate.onHit(request, hit, latency);
		}

		@Override
		public void onFastPathHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
			this.fastPathHits.incrementAndGet();
			this.delegate.onHit(request, hit, latency);
		}

		@Override
		public void onConflict(ClaimRequest request, ClaimResult.Hit hit) {
			this.delegate.onConflict(request, hit);
		}

	}

	/** Counts the fast path's lookups. */
	static final class RecordingFastPathListener implements FastPathListener {

		final AtomicInteger known = new AtomicInteger();

		final AtomicInteger failed = new AtomicInteger();

		final AtomicInteger bypassed = new AtomicInteger();

		@Override
		public void onLookup(String scope, int known, int unknown, int failed, Duration latency) {
			this.known.addAndGet(known);
			this.failed.addAndGet(failed);
		}

		@Override
		public void onBypassed(String scope, int keys) {
			this.bypassed.addAndGet(keys);
		}

	}

}
