package dev.idempotent.observation;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimInProgressException;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.JdbcLeasedClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.key.KeyValidator;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The observations of claims, made by real executors on H2 and read back from a {@link TestObservationRegistry}: one
 * per claim and per batch claim, child of the observation current on the thread, with its outcome in the
 * low-cardinality keys and the span name, and the masked key and the source only in the high-cardinality keys.
 */
class ObservationClaimObserverTest {

	private static final DataSource H2 = TestDatabases.h2();

	private static final String ORDER = "order-4711-abcdef";

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final TableName table = TestDatabases.createClaimTable(H2, SqlDialect.H2);

	private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(H2);

	private final JdbcClaimStore store = new JdbcClaimStore(H2, this.table, SqlDialect.H2, Clock.systemUTC(), true);

	private final TransactionalClaimExecutor executor = new TransactionalClaimExecutor(this.store,
			this.transactionManager, ClaimListener.NO_OP, 5);

	private final ObservationClaimObserver observer = new ObservationClaimObserver(this.registry, KeyMasker.MASKED);

	ObservationClaimObserverTest() {
		this.executor.setClaimObserver(this.observer);
	}

	@Test
	void aClaimIsObservedAsAChildOfTheCurrentObservationWithItsOutcome() throws Throwable {
		Observation listener = Observation.start("listener", this.registry);
		try (Observation.Scope scope = listener.openScope()) {
			this.executor.execute(request(ORDER, 7, null), () -> {
				// the claim's observation is current while the work runs: the work's own spans are its children
				assertThat(this.registry.getCurrentObservation().getContext().getName())
					.isEqualTo(DefaultClaimObservationConvention.NAME);
				return "credited";
			});
		}
		listener.stop();

		assertThat(this.registry).hasObservationWithNameEqualTo(DefaultClaimObservationConvention.NAME)
			.that()
			.hasBeenStarted()
			.hasBeenStopped()
			.hasParentObservationEqualTo(listener)
			.hasContextualNameEqualTo("idempotent claimed")
			.hasLowCardinalityKeyValue("idempotent.scope", "ledger")
			.hasLowCardinalityKeyValue("idempotent.mode", "transactional")
			.hasLowCardinalityKeyValue("idempotent.outcome", "claimed")
			.hasHighCardinalityKeyValue("idempotent.key", KeyMasker.MASKED.mask(ORDER))
			.hasHighCardinalityKeyValue("idempotent.source", "payments-0@7")
			.doesNotHaveError();
	}

	@Test
	void aHitIsNamedSoInTheSpanAndItsKeyIsMaskedAndKeptOutOfTheLowCardinalityKeys() throws Throwable {
		this.executor.execute(request(ORDER, 7, null), () -> "credited");
		this.registry.clear();

		ClaimOutcome<String> outcome = this.executor.execute(request(ORDER, 8, null), () -> "credited again");

		assertThat(outcome).isInstanceOf(ClaimOutcome.Skipped.class);
		assertThat(this.registry).hasSingleObservationThat()
			.hasContextualNameEqualTo("idempotent hit")
			.hasLowCardinalityKeyValue("idempotent.outcome", "hit")
			.hasHighCardinalityKeyValue("idempotent.source", "payments-0@8")
			.doesNotHaveError()
			.satisfies((context) -> {
				KeyValues low = context.getLowCardinalityKeyValues();
				assertThat(low.stream().map(io.micrometer.common.KeyValue::getKey))
					.containsExactlyInAnyOrder("idempotent.scope", "idempotent.mode", "idempotent.outcome");
				assertThat(context.getAllKeyValues().stream().map(io.micrometer.common.KeyValue::getValue))
					.noneMatch((value) -> value.contains(ORDER));
			});
	}

	@Test
	void aHitWithAnotherPayloadIsAConflict() throws Throwable {
		this.executor.execute(request(ORDER, 1, "fp-first"), () -> "credited");
		this.registry.clear();

		this.executor.execute(request(ORDER, 2, "fp-other"), () -> "credited again");

		assertThat(this.registry).hasSingleObservationThat()
			.hasContextualNameEqualTo("idempotent conflict")
			.hasLowCardinalityKeyValue("idempotent.outcome", "conflict");
	}

	@Test
	void aFailureIsTheObservationsErrorAndAReplayAfterItIsReclaimed() throws Throwable {
		ClaimRequest request = request(ORDER, 3, null);
		IllegalStateException failure = new IllegalStateException("ledger down");
		assertThatThrownBy(() -> this.executor.execute(request, () -> {
			throw failure;
		})).isSameAs(failure);
		assertThat(this.registry).hasSingleObservationThat()
			.hasLowCardinalityKeyValue("idempotent.outcome", "failed")
			.hasError(failure);
		new FailureRecorder(this.store, this.transactionManager).record(request, 3, failure);
		this.registry.clear();

		this.executor.execute(request, () -> "replayed from the DLT");

		assertThat(this.registry).hasSingleObservationThat()
			.hasContextualNameEqualTo("idempotent reclaimed")
			.hasLowCardinalityKeyValue("idempotent.outcome", "reclaimed");
	}

	@Test
	void executeInOwnTransactionIsObservedOnce() throws Throwable {
		this.executor.executeInOwnTransaction(request(ORDER, 7, null), () -> "credited");

		assertThat(this.registry).hasNumberOfObservationsEqualTo(1);
	}

	@Test
	void aBatchClaimIsOneObservationWithItsCountsAndOffsetRanges() throws Throwable {
		this.executor.execute(request("order-1", 0, null), () -> "credited");
		this.registry.clear();
		List<ClaimRequest> batch = List.of(request("order-1", 10, null), request("order-2", 11, null),
				request("order-2", 12, null), request("order-3", 13, null),
				new ClaimRequest("ledger", "order-4", new DeliverySource("payments", 1, 4)));

		BatchOutcome<String> outcome = this.executor.executeBatchInOwnTransaction(batch, (claimed) -> "credited");

		assertThat(outcome.claimed()).containsExactly(1, 3, 4);
		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo(DefaultBatchClaimObservationConvention.NAME)
			.hasContextualNameEqualTo("idempotent batch claimed")
			.hasLowCardinalityKeyValue("idempotent.scope", "ledger")
			.hasLowCardinalityKeyValue("idempotent.outcome", "claimed")
			.hasHighCardinalityKeyValue("idempotent.batch.size", "5")
			.hasHighCardinalityKeyValue("idempotent.batch.claimed", "3")
			.hasHighCardinalityKeyValue("idempotent.batch.hits", "2")
			.hasHighCardinalityKeyValue("idempotent.source", "payments-0@10..13 payments-1@4")
			.doesNotHaveHighCardinalityKeyValueWithKey("idempotent.key");
	}

	@Test
	void aBatchOfHitsOnlyIsAHit() throws Throwable {
		List<ClaimRequest> batch = List.of(request("order-1", 10, null), request("order-2", 11, null));
		this.executor.executeBatch(batch, (claimed) -> "credited");
		this.registry.clear();

		this.executor.executeBatch(batch, (claimed) -> "credited again");

		assertThat(this.registry).hasSingleObservationThat()
			.hasContextualNameEqualTo("idempotent batch hit")
			.hasHighCardinalityKeyValue("idempotent.batch.hits", "2");
	}

	@Test
	void aLeasedClaimIsObservedWithItsModeAndALiveLeaseIsInProgressNotAnError() throws Throwable {
		LeasedClaimExecutor leased = new LeasedClaimExecutor(
				new JdbcLeasedClaimStore(H2, this.table, SqlDialect.H2, Clock.systemUTC()), this.transactionManager,
				ClaimListener.NO_OP, 5);
		leased.setClaimObserver(this.observer);
		ClaimRequest request = request(ORDER, 5, null);

		leased.execute(request, Duration.ofMinutes(1), () -> {
			assertThatThrownBy(() -> leased.execute(request, Duration.ofMinutes(1), () -> "twice"))
				.isInstanceOf(ClaimInProgressException.class);
			return "sms sent";
		});

		assertThat(this.registry).hasNumberOfObservationsEqualTo(2)
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("idempotent.mode", "leased")
				.hasLowCardinalityKeyValue("idempotent.outcome", "claimed")
				.doesNotHaveError())
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("idempotent.outcome", "in-progress")
				.doesNotHaveError());
	}

	@Test
	void aRejectedKeyIsObservedWithTheRejectionAsItsError() {
		IdempotentTemplate template = new IdempotentTemplate(this.executor, new KeyValidator(128), this.observer);

		assertThatThrownBy(() -> template.execute("payments-api", "  ", () -> "never"))
			.isInstanceOf(InvalidIdempotencyKeyException.class);

		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo(DefaultClaimObservationConvention.NAME)
			.hasContextualNameEqualTo("idempotent rejected")
			.hasLowCardinalityKeyValue("idempotent.scope", "payments-api")
			.hasLowCardinalityKeyValue("idempotent.mode", "none")
			.hasLowCardinalityKeyValue("idempotent.outcome", "rejected")
			.assertThatError()
			.isInstanceOf(InvalidIdempotencyKeyException.class);
	}

	@Test
	void anApplicationsConventionReplacesTheDefault() throws Throwable {
		ClaimObservationConvention custom = new DefaultClaimObservationConvention() {

			@Override
			public String getName() {
				return "payments.dedup";
			}

			@Override
			public KeyValues getLowCardinalityKeyValues(ClaimObservationContext context) {
				return super.getLowCardinalityKeyValues(context).and("team", "payments");
			}

		};
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(this.store, this.transactionManager,
				ClaimListener.NO_OP, 5);
		executor.setClaimObserver(new ObservationClaimObserver(this.registry, KeyMasker.CLEAR, custom, null));

		executor.execute(request(ORDER, 7, null), () -> "credited");

		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo("payments.dedup")
			.hasLowCardinalityKeyValue("team", "payments")
			.hasHighCardinalityKeyValue("idempotent.key", ORDER);
	}

	private static ClaimRequest request(String key, long offset, String fingerprint) {
		return new ClaimRequest("ledger", key, new DeliverySource("payments", 0, offset), fingerprint);
	}

}
