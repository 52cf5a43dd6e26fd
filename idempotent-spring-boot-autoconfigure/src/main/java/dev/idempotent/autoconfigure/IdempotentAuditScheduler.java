package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.List;

/**
 * Runs the reconciliation audits and the idempotency-table check on their intervals, on one daemon thread
 * ({@code idempotent-audit}), from the context's start to its stop. A run that fails (the database is down, a query
 * times out) logs a WARN and the next run happens as planned. The first run of a task is one interval after the
 * start, or {@link #MAX_INITIAL_DELAY} if that is sooner. The stop waits up to 10 seconds for a running query, so
 * that it does not outlive the data source. Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotentAuditScheduler extends ScheduledTasks {

	/** The longest wait before the first run of a task. */
	public static final Duration MAX_INITIAL_DELAY = Duration.ofMinutes(1);

	private final List<Task> tasks;

	/**
	 * Create a scheduler.
	 * @param tasks what to run, never {@code null}
	 */
	public IdempotentAuditScheduler(List<Task> tasks) {
		super("idempotent-audit", tasks.stream()
			.map((task) -> new Run(task.name(), min(task.interval(), MAX_INITIAL_DELAY), task.interval(), task.action()))
			.toList(), Duration.ofSeconds(10));
		this.tasks = List.copyOf(tasks);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	/**
	 * Return the scheduled tasks.
	 * @return the tasks, never {@code null}
	 */
	public List<Task> getTasks() {
		return this.tasks;
	}

	/**
	 * A task of the scheduler.
	 *
	 * @param name what the task is, for logs, never {@code null}
	 * @param interval the pause between the end of one run and the start of the next, positive
	 * @param action the run, never {@code null}; may throw
	 */
	public record Task(String name, Duration interval, Runnable action) {

		/**
		 * Create a task.
		 * @throws IllegalArgumentException if the interval is not positive
		 */
		public Task {
			if (interval.isNegative() || interval.isZero()) {
				throw new IllegalArgumentException("The interval of " + name + " must be positive");
			}
		}

	}

}
