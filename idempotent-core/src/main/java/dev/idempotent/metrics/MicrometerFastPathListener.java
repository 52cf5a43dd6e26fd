package dev.idempotent.metrics;

import java.time.Duration;

import dev.idempotent.fastpath.FastPathListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Records the fast path in Micrometer. Meters:
 * <ul>
 * <li>{@value #LOOKUPS} (counter of keys), tags {@code scope} and {@code result} = {@value #KNOWN} (a hit without the
 * database) | {@value #UNKNOWN} | {@value #ERROR} (an error or timeout) | {@value #BYPASSED} (not asked: paused
 * after an error); every result but {@code known} is claimed in the database;</li>
 * <li>{@value #LOOKUP_DURATION} (timer), tag {@code scope}: one lookup, a single key or a batch's keys;</li>
 * <li>{@value #REMEMBERED} (counter of keys), tag {@code result} = {@value #STORED} | {@value #ERROR}: keys passed
 * to the fast path after their database commit.</li>
 * </ul>
 * The hits the fast path answers are also counted by {@link MicrometerClaimListener}, with
 * {@code found_in=fast-path}. Thread-safe.
 *
 * @since 0.1.0
 */
public class MicrometerFastPathListener implements FastPathListener {

	/** Counter of looked-up keys by result. */
	public static final String LOOKUPS = "idempotent.fast.path.lookups";

	/** Timer of lookups. */
	public static final String LOOKUP_DURATION = "idempotent.fast.path.lookup.duration";

	/** Counter of keys remembered after their commit, by result. */
	public static final String REMEMBERED = "idempotent.fast.path.remembered";

	/** Result tag value: the key was known. */
	public static final String KNOWN = "known";

	/** Result tag value: the key was not known. */
	public static final String UNKNOWN = "unknown";

	/** Result tag value: the fast path failed or timed out. */
	public static final String ERROR = "error";

	/** Result tag value: the fast path was not asked, paused after an error. */
	public static final String BYPASSED = "bypassed";

	/** Result tag value: the keys were stored. */
	public static final String STORED = "stored";

	private final MeterRegistry registry;

	/**
	 * Create a listener.
	 * @param registry the registry to record to, never {@code null}
	 */
	public MicrometerFastPathListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onLookup(String scope, int known, int unknown, int failed, Duration latency) {
		count(scope, KNOWN, known);
		count(scope, UNKNOWN, unknown);
		count(scope, ERROR, failed);
		Timer.builder(LOOKUP_DURATION)
			.description("Time taken by one fast path lookup")
			.tag("scope", scope)
			.register(this.registry)
			.record(latency);
	}

	@Override
	public void onBypassed(String scope, int keys) {
		count(scope, BYPASSED, keys);
	}

	@Override
	public void onRemember(int keys, @Nullable Exception error) {
		Counter.builder(REMEMBERED)
			.description("Keys passed to the fast path after their database commit")
			.tag("result", (error != null) ? ERROR : STORED)
			.register(this.registry)
			.increment(keys);
	}

	private void count(String scope, String result, int keys) {
		if (keys > 0) {
			Counter.builder(LOOKUPS)
				.description("Keys looked up in the fast path, by result")
				.tag("scope", scope)
				.tag("result", result)
				.register(this.registry)
				.increment(keys);
		}
	}

}
