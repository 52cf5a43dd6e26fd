package dev.idempotent.metrics;

import java.util.function.ToLongFunction;

import dev.idempotent.audit.ClaimTableCheck;
import dev.idempotent.audit.ClaimTableCounts;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The counts of the latest {@link ClaimTableCheck} run as gauges: {@value #ROWS}, tag {@code status} =
 * {@value #FAILED} (FAILED rows) | {@value #STUCK} (PROCESSING rows whose lease expired); {@code NaN} until the
 * first run. Thread-safe.
 *
 * @since 0.1.0
 */
public class ClaimTableMeters implements MeterBinder {

	/** Gauge of idempotency rows by status. */
	public static final String ROWS = "idempotent.table.rows";

	/** Status tag value of FAILED rows. */
	public static final String FAILED = "failed";

	/** Status tag value of PROCESSING rows with an expired lease. */
	public static final String STUCK = "stuck";

	private final ClaimTableCheck check;

	/**
	 * Create the binder.
	 * @param check the check whose latest counts are shown, never {@code null}
	 */
	public ClaimTableMeters(ClaimTableCheck check) {
		this.check = check;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		gauge(registry, FAILED, ClaimTableCounts::failed);
		gauge(registry, STUCK, ClaimTableCounts::stuck);
	}

	private void gauge(MeterRegistry registry, String status, ToLongFunction<ClaimTableCounts> count) {
		Gauge.builder(ROWS, this.check, (check) -> {
			ClaimTableCounts counts = check.lastCounts();
			return (counts != null) ? count.applyAsLong(counts) : Double.NaN;
		}).description("Idempotency rows by status, as counted by the latest table check")
			.tag("status", status)
			.register(registry);
	}

}
