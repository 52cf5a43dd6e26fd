package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Runs the reconciliation audits and the idempotency-table check on their intervals, on one daemon thread
 * ({@code idempotent-audit}), from the context's start to its stop. A run that fails (the database is down, a query
 * times out) logs a WARN and the next run happens as planned. The first run of a task is one interval after the
 * start, or {@link #MAX_INITIAL_DELAY} if that is sooner. Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotentAuditScheduler implements SmartLifecycle {

	/** The longest wait before the first run of a task. */
	public static final Duration MAX_INITIAL_DELAY = Duration.ofMinutes(1);

	private static final Logger logger = LoggerFactory.getLogger(IdempotentAuditScheduler.class);

	private final List<Task> tasks;

	private @Nullable ScheduledExecutorService executor;

	/**
	 * Create a scheduler.
	 * @param tasks what to run, never {@code null}
	 */
	public IdempotentAuditScheduler(List<Task> tasks) {
		this.tasks = List.copyOf(tasks);
	}

	/**
	 * Return the scheduled tasks.
	 * @return the tasks, never {@code null}
	 */
	public List<Task> getTasks() {
		return this.tasks;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null || this.tasks.isEmpty()) {
			return;
		}
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "idempotent-audit");
			thread.setDaemon(true);
			return thread;
		});
		executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		for (Task task : this.tasks) {
			long interval = task.interval().toMillis();
			long initialDelay = Math.min(interval, MAX_INITIAL_DELAY.toMillis());
			executor.scheduleWithFixedDelay(() -> run(task), initialDelay, interval, TimeUnit.MILLISECONDS);
		}
		this.executor = executor;
	}

	private static void run(Task task) {
		try {
			task.action().run();
		}
		catch (RuntimeException | Error ex) {
			// whatever a run throws, the next run must still happen: a scheduled executor silently drops a task
			// that throws
			logger.warn("{} failed; it runs again in {}: {}", task.name(), task.interval(), ex.toString());
		}
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor != null) {
			executor.shutdownNow();
			this.executor = null;
			awaitTermination(executor);
		}
	}

	/** Let a running query end before the data source closes (it would otherwise log a spurious failure). */
	private static void awaitTermination(ScheduledExecutorService executor) {
		try {
			if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
				logger.warn("An audit or table check still runs 10 s after the shutdown began; leaving it");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
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
