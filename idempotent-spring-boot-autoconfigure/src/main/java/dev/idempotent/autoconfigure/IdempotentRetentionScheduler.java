package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.idempotent.retention.JdbcRetentionJob;

/**
 * Runs the retention job on a thread of its own ({@code idempotent-retention}), first after the initial delay, then
 * each interval after the end of the previous run. A failed run is logged at WARN (it is counted by the job) and the
 * next run tries again; its committed batches stay committed. Stopped with the application context: the running
 * batch finishes or rolls back (the stop waits up to 30 seconds), no batch starts after it. Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotentRetentionScheduler extends ScheduledTasks {

	/**
	 * Create a scheduler.
	 * @param job the job to run, never {@code null}
	 * @param initialDelay the pause before the first run ({@code idempotent.retention.initial-delay}), zero or
	 * positive
	 * @param interval the pause between runs ({@code idempotent.retention.interval}), positive
	 * @throws IllegalArgumentException if a pause is negative or the interval zero
	 */
	public IdempotentRetentionScheduler(JdbcRetentionJob job, Duration initialDelay, Duration interval) {
		super("idempotent-retention", List.of(new Run("Retention run", initialDelay, interval, job::run)),
				Duration.ofSeconds(30));
	}

}
