package dev.idempotent.observation;

import java.util.List;
import java.util.Objects;

import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimInProgressException;
import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.observation.ClaimObservationContext.Outcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Makes each claim a Micrometer {@link Observation} ({@link ClaimObservationDocumentation}): started when the
 * executor is called, current (in scope) while the claim, the work and the commit run, so that spans the work creates
 * are its children, and stopped when the executor returns, with the {@link Outcome}. It starts under the observation
 * current on the thread, which in a listener container with observations on is spring-kafka's observation of the
 * delivery. A failure is recorded as the observation's error (outcome {@code failed}); a live lease held elsewhere
 * (LEASED mode) is outcome {@code in-progress}, not an error.
 * <p>It is also a {@link ClaimListener}, for the one outcome that never reaches an executor: a rejected key, observed
 * as a {@link ClaimObservationDocumentation#CLAIM} with outcome {@code rejected} and the rejection as its error.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public class ObservationClaimObserver implements ClaimObserver, ClaimListener {

	private static final ClaimObservationConvention DEFAULT_CONVENTION = new DefaultClaimObservationConvention();

	private static final BatchClaimObservationConvention DEFAULT_BATCH_CONVENTION = new DefaultBatchClaimObservationConvention();

	private final ObservationRegistry registry;

	private final KeyMasker masker;

	private final @Nullable ClaimObservationConvention convention;

	private final @Nullable BatchClaimObservationConvention batchConvention;

	/**
	 * Create an observer with the default conventions.
	 * @param registry where observations are made, never {@code null}
	 * @param masker renders keys in the observations' high-cardinality key {@code idempotent.key}, never {@code null}
	 */
	public ObservationClaimObserver(ObservationRegistry registry, KeyMasker masker) {
		this(registry, masker, null, null);
	}

	/**
	 * Create an observer.
	 * @param registry where observations are made, never {@code null}
	 * @param masker renders keys in the observations' high-cardinality key {@code idempotent.key}, never {@code null}
	 * @param convention replaces {@link DefaultClaimObservationConvention}, or {@code null} for the default
	 * @param batchConvention replaces {@link DefaultBatchClaimObservationConvention}, or {@code null} for the default
	 */
	public ObservationClaimObserver(ObservationRegistry registry, KeyMasker masker,
			@Nullable ClaimObservationConvention convention, @Nullable BatchClaimObservationConvention batchConvention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.masker = Objects.requireNonNull(masker, "masker must not be null");
		this.convention = convention;
		this.batchConvention = batchConvention;
	}

	@Override
	public <T extends @Nullable Object> ClaimOutcome<T> observe(ClaimRequest request, ClaimMode mode,
			Observed<ClaimOutcome<T>> claim) throws Throwable {
		ClaimObservationContext context = new ClaimObservationContext(request.scope(), mode, List.of(request), false,
				this.masker);
		Observation observation = ClaimObservationDocumentation.CLAIM
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			ClaimOutcome<T> outcome = claim.call();
			context.setOutcome(outcomeOf(request, outcome));
			return outcome;
		}
		catch (ClaimInProgressException ex) {
			context.setOutcome(Outcome.IN_PROGRESS);
			throw ex;
		}
		catch (Throwable ex) {
			context.setOutcome(Outcome.FAILED);
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Override
	public <T extends @Nullable Object> BatchOutcome<T> observeBatch(List<ClaimRequest> requests,
			Observed<BatchOutcome<T>> claim) throws Throwable {
		ClaimObservationContext context = new ClaimObservationContext(
				requests.isEmpty() ? "-" : requests.get(0).scope(), ClaimMode.TRANSACTIONAL, requests, true, this.masker);
		Observation observation = ClaimObservationDocumentation.BATCH_CLAIM
			.observation(this.batchConvention, DEFAULT_BATCH_CONVENTION, () -> context, this.registry)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			BatchOutcome<T> outcome = claim.call();
			context.setBatchCounts(outcome.claimed().size(), outcome.hits().size());
			context.setOutcome(outcome.claimed().isEmpty() ? Outcome.HIT : Outcome.CLAIMED);
			return outcome;
		}
		catch (Throwable ex) {
			context.setOutcome(Outcome.FAILED);
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Override
	public void rejected(String scope, InvalidIdempotencyKeyException error) {
		ClaimObservationContext context = new ClaimObservationContext(scope, null, List.of(), false, this.masker);
		context.setOutcome(Outcome.REJECTED);
		ClaimObservationDocumentation.CLAIM
			.observation(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
			.start()
			.error(error)
			.stop();
	}

	/** Observe a rejected key: see {@link #rejected}. */
	@Override
	public void onRejected(String scope, InvalidIdempotencyKeyException error) {
		rejected(scope, error);
	}

	private static Outcome outcomeOf(ClaimRequest request, ClaimOutcome<?> outcome) {
		if (outcome instanceof ClaimOutcome.Skipped<?> skipped) {
			return request.conflictsWith(skipped.hit()) ? Outcome.CONFLICT : Outcome.HIT;
		}
		return ((ClaimOutcome.Processed<?>) outcome).reclaimed() ? Outcome.RECLAIMED : Outcome.CLAIMED;
	}

	@Override
	public String toString() {
		return "ObservationClaimObserver[" + this.masker + "]";
	}

}
