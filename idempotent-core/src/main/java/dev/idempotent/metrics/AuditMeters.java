package dev.idempotent.metrics;

import dev.idempotent.audit.AuditResult;
import dev.idempotent.audit.Audits;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * One gauge per declared audit: {@value #DUPLICATES}, tag {@code audit} = the audit's name, the number of business
 * keys its latest run found written more than once ({@code NaN} until it has run). Thread-safe.
 *
 * @since 0.1.0
 */
public class AuditMeters implements MeterBinder {

	/** Gauge of the duplicated keys found by an audit's latest run. */
	public static final String DUPLICATES = "idempotent.audit.duplicates";

	private final Audits audits;

	/**
	 * Create the binder.
	 * @param audits the audits, never {@code null}
	 */
	public AuditMeters(Audits audits) {
		this.audits = audits;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (String name : this.audits.names()) {
			Gauge.builder(DUPLICATES, this.audits,
					(audits) -> audits.lastResult(name).map(AuditResult::duplicatedKeys).map(Long::doubleValue)
						.orElse(Double.NaN))
				.description("Business keys written more than once, as found by the audit's latest run")
				.tag("audit", name)
				.register(registry);
		}
	}

}
