package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Background work of the starter (retention, audits, table checks): named tasks on one daemon thread, each first
 * after its initial delay, then each interval after the end of its previous run, from the context's start to its
 * stop. Whatever a run throws is logged at WARN and the next run happens as planned (a scheduled executor would
 * otherwise silently drop the task). On stop, no run starts any more, the running one is interrupted, and the stop
 * waits up to a timeout for it, so that it does not outlive the data source. Thread-safe.
 *
 * @since 0.1.0
 */
public abstract class ScheduledTasks implements SmartLifecycle {

	private final Logger logger = LoggerFactory.getLogger(getClass());

	private final String threadName;

	private final List<Run> runs;

	private final Duration stopTimeout;

	private @Nullable ScheduledExecutorService executor;

	/**
	 * Create the scheduler of some tasks.
	 * @param threadName the name of the thread that runs them, never {@code null}
	 * @param runs the tasks, never {@code null}; none means nothing is started
	 * @param stopTimeout how long a stop waits for a running task
	 */
	protected ScheduledTasks(String threadName, List<Run> runs, Duration stopTimeout) {
		this.threadName = Objects.requireNonNull(threadName, "threadName must not be null");
		this.runs = List.copyOf(runs);
		this.stopTimeout = stopTimeout;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null || this.runs.isEmpty()) {
			return;
		}
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, this.threadName);
			thread.setDaemon(true);
			return thread;
		});
		executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		for (Run run : this.runs) {
			executor.scheduleWithFixedDelay(() -> execute(run), run.initialDelay().toMillis(), run.interval().toMillis(),
					TimeUnit.MILLISECONDS);
		}
		this.executor = executor;
	}

	private void execute(Run run) {
		try {
			run.action().run();
		}
		catch (RuntimeException | Error ex) {
			if (!isRunning()) {
				this.logger.debug("{} stopped with the application", run.name(), ex);
			}
			else {
				this.logger.warn("{} failed; next run in {}", run.name(), run.interval(), ex);
			}
		}
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor;
		synchronized (this) {
			executor = this.executor;
			this.executor = null;
		}
		if (executor == null) {
			return;
		}
		executor.shutdownNow();
		try {
			if (!executor.awaitTermination(this.stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
				this.logger.warn("{} still runs {} after the shutdown began; leaving it", this.threadName, this.stopTimeout);
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
	 * One scheduled task.
	 *
	 * @param name its name in log lines, e.g. {@code Audit 'ledger'}, never {@code null}
	 * @param initialDelay the pause before its first run, zero or positive
	 * @param interval the pause between the end of a run and the start of the next, positive
	 * @param action the work, never {@code null}
	 */
	protected record Run(String name, Duration initialDelay, Duration interval, Runnable action) {

		/**
		 * Create a task.
		 * @throws IllegalArgumentException if the initial delay is negative or the interval not positive
		 */
		protected Run {
			if (initialDelay.isNegative() || interval.isNegative() || interval.isZero()) {
				throw new IllegalArgumentException(name + ": the initial delay must not be negative and the interval"
						+ " must be positive; got " + initialDelay + " and " + interval);
			}
		}

	}

}
