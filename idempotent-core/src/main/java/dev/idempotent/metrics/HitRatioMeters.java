package dev.idempotent.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The gauge {@value #HIT_RATIO}, tag {@code scope}: the share of idempotent hits among the claims of the
 * {@link HitRatioMonitor}'s sliding window (redeliveries of the same records left out), from 0 to 1 ({@code NaN} while the window holds none). One gauge per
 * scope, registered when the scope records its first outcome. Thread-safe.
 *
 * @since 0.1.0
 */
public class HitRatioMeters implements MeterBinder {

	/** Gauge of the hit ratio per scope over the sliding window. */
	public static final String HIT_RATIO = "idempotent.hit.ratio";

	private final HitRatioMonitor monitor;

	/**
	 * Create the binder.
	 * @param monitor the monitor whose ratios are shown, never {@code null}
	 */
	public HitRatioMeters(HitRatioMonitor monitor) {
		this.monitor = monitor;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.monitor.addScopeListener((scope) -> Gauge.builder(HIT_RATIO, this.monitor, (monitor) -> monitor.ratio(scope))
			.description("Share of idempotent hits among the claims of the sliding window")
			.tag("scope", scope)
			.register(registry));
	}

}
