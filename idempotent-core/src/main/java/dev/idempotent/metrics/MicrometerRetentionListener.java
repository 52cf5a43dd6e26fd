package dev.idempotent.metrics;

import dev.idempotent.retention.LateRecordPolicy;
import dev.idempotent.retention.RetentionListener;
import dev.idempotent.retention.RetentionMode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Records retention in Micrometer. Meters:
 * <ul>
 * <li>{@value #ROWS} (counter), tag {@code action} = {@code archived} | {@code deleted}: rows removed from the
 * idempotency table;</li>
 * <li>{@value #RUNS} (counter), tag {@code outcome} = {@value #SUCCESS} | {@value #FAILURE}: runs of the retention
 * job; failures repeating mean the table keeps growing;</li>
 * <li>{@value #LATE_RECORDS} (counter), tag {@code policy} = {@code process} | {@code dead-letter}: records
 * delivered with a timestamp older than the retention period.</li>
 * </ul>
 * Thread-safe.
 *
 * @since 0.1.0
 */
public class MicrometerRetentionListener implements RetentionListener {

	/** Counter of rows archived or deleted. */
	public static final String ROWS = "idempotent.retention.rows";

	/** Counter of retention runs by outcome. */
	public static final String RUNS = "idempotent.retention.runs";

	/** Counter of records older than the retention period, by policy. */
	public static final String LATE_RECORDS = "idempotent.late.records";

	/** Outcome tag value: the run ended without error. */
	public static final String SUCCESS = "success";

	/** Outcome tag value: the run ended with an error. */
	public static final String FAILURE = "failure";

	private final MeterRegistry registry;

	/**
	 * Create a listener.
	 * @param registry the registry to record to, never {@code null}
	 */
	public MicrometerRetentionListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onRows(RetentionMode mode, int rows) {
		Counter.builder(ROWS)
			.description("Rows removed from the idempotency table by retention")
			.tag("action", mode.action())
			.register(this.registry)
			.increment(rows);
	}

	@Override
	public void onRun(boolean success) {
		Counter.builder(RUNS)
			.description("Runs of the retention job by outcome")
			.tag("outcome", success ? SUCCESS : FAILURE)
			.register(this.registry)
			.increment();
	}

	@Override
	public void onLateRecord(LateRecordPolicy policy) {
		Counter.builder(LATE_RECORDS)
			.description("Records delivered with a timestamp older than the retention period")
			.tag("policy", policy.tag())
			.register(this.registry)
			.increment();
	}

}
