package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import dev.idempotent.retention.JdbcRetentionJob;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Runs the retention job on a thread of its own, first after the initial delay, then each interval after the end
 * of the previous run. A failed run is logged at WARN (it is counted by the job) and the next run tries again.
 * Stopped with the application context: the running batch finishes or rolls back, no batch starts after it.
 *
 * @since 0.1.0
 */
public class IdempotentRetentionScheduler implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(IdempotentRetentionScheduler.class);

	private final JdbcRetentionJob job;

	private final Duration initialDelay;

	private final Duration interval;

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * Create a scheduler.
	 * @param job the job to run
	 * @param initialDelay the pause before the first run, zero or positive
	 * @param interval the pause between runs, positive
	 * @throws IllegalArgumentException if a pause is negative or the interval zero
	 */
	public IdempotentRetentionScheduler(JdbcRetentionJob job, Duration initialDelay, Duration interval) {
		if (initialDelay.isNegative() || interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("idempotent.retention.initial-delay must not be negative and "
					+ "idempotent.retention.interval must be positive; got " + initialDelay + " and " + interval);
		}
		this.job = job;
		this.initialDelay = initialDelay;
		this.interval = interval;
	}

	@Override
	public void start() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("idempotent-retention-");
		threads.setDaemon(true);
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
		executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		executor.scheduleWithFixedDelay(this::runOnce, this.initialDelay.toMillis(), this.interval.toMillis(),
				TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	private void runOnce() {
		try {
			this.job.run();
		}
		catch (RuntimeException | Error ex) {
			// whatever a run throws, the next run must still happen: a scheduled executor silently drops a task
			// that throws
			if (this.executor == null) {
				logger.debug("Retention run stopped with the application (its committed batches stay committed)", ex);
			}
			else {
				logger.warn("Retention run failed (its committed batches stay committed); next run in {}",
						this.interval, ex);
			}
		}
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.executor;
		this.executor = null;
		if (executor != null) {
			executor.shutdownNow();
			try {
				if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
					logger.warn("The retention job did not stop within 30 seconds");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

}
