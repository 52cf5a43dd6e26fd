package dev.idempotent.it;

import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The claim counters ({@value MicrometerClaimListener#CLAIMS}) of an application under test, read from its
 * {@link MeterRegistry}. Reads only; as thread-safe as the registry.
 */
public final class ClaimMeters {

	private ClaimMeters() {
	}

	/** The claims of {@code scope} with that outcome so far; 0 before the first. */
	public static long count(MeterRegistry meters, String scope, String outcome) {
		return (long) meters.find(MicrometerClaimListener.CLAIMS)
			.tag("scope", scope)
			.tag("outcome", outcome)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	/** The idempotent hits of {@code scope} so far; 0 before the first. */
	public static long hits(MeterRegistry meters, String scope) {
		return count(meters, scope, MicrometerClaimListener.HIT);
	}

}
