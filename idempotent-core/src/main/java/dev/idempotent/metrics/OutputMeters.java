package dev.idempotent.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Counts outputs:
 * <ul>
 * <li>{@value #STORED} (counter), tag {@code scope}: outputs stored with a claim that committed, and awaited;</li>
 * <li>{@value #REPLAYED} (counter), tag {@code scope}: stored outputs sent again because a redelivery of their key
 * was an idempotent hit.</li>
 * </ul>
 * Thread-safe.
 *
 * @since 0.1.0
 */
public final class OutputMeters {

	/** Counter of outputs stored with committed claims. */
	public static final String STORED = "idempotent.outputs.stored";

	/** Counter of stored outputs sent again on hits. */
	public static final String REPLAYED = "idempotent.outputs.replayed";

	/** Counts nothing. */
	public static final OutputMeters NONE = new OutputMeters(null);

	private final @Nullable MeterRegistry registry;

	/**
	 * Create the meters.
	 * @param registry where to count, {@code null} to count nothing
	 */
	public OutputMeters(@Nullable MeterRegistry registry) {
		this.registry = registry;
	}

	/**
	 * Count outputs stored with a claim that committed.
	 * @param scope the claim's scope
	 * @param count how many
	 */
	public void stored(String scope, int count) {
		increment(STORED, "Outputs stored with committed claims", scope, count);
	}

	/**
	 * Count outputs a hit sent again.
	 * @param scope the claim's scope
	 * @param count how many
	 */
	public void replayed(String scope, int count) {
		increment(REPLAYED, "Stored outputs sent again on idempotent hits", scope, count);
	}

	private void increment(String name, String description, String scope, int count) {
		if (this.registry != null && count > 0) {
			Counter.builder(name).description(description).tag("scope", scope).register(this.registry).increment(count);
		}
	}

}
