package dev.idempotent.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The outcome of one run of a reconciliation audit: how many business keys were written more than once.
 *
 * @param name the audit's name, never {@code null}
 * @param duplicatedKeys how many business keys occur more than once (0 when the audit found nothing)
 * @param sampleKeys up to a few of those keys, as stored (mask them before logging or showing them), never
 * {@code null}
 * @param ranAt when the run started, never {@code null}
 * @param took how long the run's query took, never {@code null}
 * @since 0.1.0
 */
public record AuditResult(String name, long duplicatedKeys, List<String> sampleKeys, Instant ranAt, Duration took) {

	/**
	 * Create a result; the sample keys are copied.
	 * @throws NullPointerException if {@code sampleKeys} is {@code null} or holds {@code null}
	 */
	public AuditResult {
		sampleKeys = List.copyOf(sampleKeys);
	}

}
