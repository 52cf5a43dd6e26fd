package dev.idempotent.metrics;

import java.time.Duration;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.HitOrigin;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Records claims in Micrometer. Meters:
 * <ul>
 * <li>{@value #CLAIMS} (counter), tags {@code outcome} = {@value #CLAIMED} | {@value #RECLAIMED} |
 * {@value #HIT} | {@value #REJECTED}, and {@code scope}. The hit ratio is
 * {@code hit / (claimed + reclaimed + hit)}. Each record counts once, when its transaction committed (see
 * {@link ClaimListener}).</li>
 * <li>{@value #HITS} (counter), tags {@code origin} = {@value #REDELIVERY} | {@value #RESEND} | {@value #UNKNOWN}
 * (see {@link HitOrigin}), {@code found_in} = {@value #DATABASE} | {@value #FAST_PATH} (the database claim, or the
 * fast path without a transaction) and {@code scope}: the same hits as {@code idempotent.claims{outcome=hit}}, by
 * where the duplicate came from. Redeliveries follow every consumer restart and rebalance; a sudden rise of re-sends means an
 * upstream is re-sending in bulk.</li>
 * <li>{@value #CLAIM_DURATION} (timer), tags {@code outcome} and {@code scope}: the time of the claim itself
 * (the INSERT and, on a duplicate, the read of the existing row), not of the work.</li>
 * <li>{@value #CONFLICTS} (counter), tag {@code scope}: hits whose payload fingerprint differs from the first
 * claim's (only with payload fingerprints on).</li>
 * </ul>
 * Thread-safe.
 *
 * @since 0.1.0
 */
public class MicrometerClaimListener implements ClaimListener {

	/** Counter of claims by outcome. */
	public static final String CLAIMS = "idempotent.claims";

	/** Timer of the claim statement(s). */
	public static final String CLAIM_DURATION = "idempotent.claim.duration";

	/** Counter of hits by origin: redelivery of the same record, or re-send of the key by the upstream. */
	public static final String HITS = "idempotent.hits";

	/** Origin tag value: the same record (topic, partition, offset) was delivered again. */
	public static final String REDELIVERY = "redelivery";

	/** Origin tag value: another record carried the same key. */
	public static final String RESEND = "resend";

	/** Origin tag value: the stored or the current source is unknown. */
	public static final String UNKNOWN = "unknown";

	/** Found-in tag value: the database claim found the hit. */
	public static final String DATABASE = "database";

	/** Found-in tag value: the fast path answered the hit, without a database transaction. */
	public static final String FAST_PATH = "fast-path";

	/** Counter of hits whose payload differs from the first claim's. */
	public static final String CONFLICTS = "idempotent.conflicts";

	/** Outcome tag value: a new row was claimed. */
	public static final String CLAIMED = "claimed";

	/** Outcome tag value: a FAILED row was taken over. */
	public static final String RECLAIMED = "reclaimed";

	/** Outcome tag value: an idempotent hit. */
	public static final String HIT = "hit";

	/** Outcome tag value: the key was bad input. */
	public static final String REJECTED = "rejected";

	private final MeterRegistry registry;

	/**
	 * Create a listener.
	 * @param registry the registry to record to, never {@code null}
	 */
	public MicrometerClaimListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
		record(request.scope(), reclaimed ? RECLAIMED : CLAIMED, latency);
	}

	@Override
	public void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		hit(request, hit, latency, DATABASE);
	}

	@Override
	public void onFastPathHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		hit(request, hit, latency, FAST_PATH);
	}

	private void hit(ClaimRequest request, ClaimResult.Hit hit, Duration latency, String foundIn) {
		record(request.scope(), HIT, latency);
		Counter.builder(HITS)
			.description("Idempotent hits by origin: a redelivery of the same record, or a re-send of its key")
			.tag("scope", request.scope())
			.tag("origin", HitOrigin.of(request, hit).tagValue())
			.tag("found_in", foundIn)
			.register(this.registry)
			.increment();
	}

	@Override
	public void onConflict(ClaimRequest request, ClaimResult.Hit hit) {
		Counter.builder(CONFLICTS)
			.description("Idempotent hits whose payload differs from the first claim's")
			.tag("scope", request.scope())
			.register(this.registry)
			.increment();
	}

	@Override
	public void onRejected(String scope, InvalidIdempotencyKeyException error) {
		counter(scope, REJECTED).increment();
	}

	private void record(String scope, String outcome, Duration latency) {
		counter(scope, outcome).increment();
		Timer.builder(CLAIM_DURATION)
			.description("Time taken by the idempotency claim")
			.tag("scope", scope)
			.tag("outcome", outcome)
			.register(this.registry)
			.record(latency);
	}

	private Counter counter(String scope, String outcome) {
		return Counter.builder(CLAIMS)
			.description("Idempotency claims by outcome")
			.tag("scope", scope)
			.tag("outcome", outcome)
			.register(this.registry);
	}

}
