package dev.idempotent.kafka.error;

import java.util.Arrays;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.RetryListener;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A back-off for spring-kafka's {@code DefaultErrorHandler} that is chosen from the <em>current</em> failure of a
 * record on every delivery attempt: a {@linkplain TransientFailures#isTransient transient} failure (the database
 * down) waits by the transient back-off and is retried until it passes; any other failure waits by the
 * permanent back-off, whose attempts run out, and then the record is recovered (dead-lettered). Transient
 * failures do not use up the permanent attempts.
 * <p>spring-kafka picks a record's back-off once, when the record first fails, and again only when the class of
 * the failure changes; a batch listener's failure is always a {@code BatchListenerFailedException}, so without this
 * a record that first failed while the database was down kept the endless transient back-off when it then failed
 * for good, and was never dead-lettered.
 * <p>It learns each failure as a {@link RetryListener}, which spring-kafka calls on the consumer thread right
 * before it asks the back-off for the next interval, so it must be both the back-off and a retry listener of the
 * handler, and stay one: {@link TransientAwareErrorHandler} and {@link TransientAwareAfterRollbackProcessor} keep it
 * the first retry listener whatever listeners the application sets later. A whole batch's failure is learned through
 * the batch callbacks of the fallback batch handler, which asks for the first interval before it tells the listeners:
 * that one interval follows the failure known before. Before any failure is known (spring-kafka probes a back-off
 * when the handler is built) it answers as for a transient failure. Thread-safe: the failure is kept per consumer
 * thread.
 *
 * @since 0.1.0
 */
public final class TransientAwareBackOff implements BackOff, RetryListener {

	private final ThreadLocal<@Nullable Exception> current = new ThreadLocal<>();

	private final BackOff permanent;

	private final BackOff transientBackOff;

	/**
	 * Create a back-off.
	 * @param permanent the back-off of failures of the record itself; it must stop
	 * @param transientBackOff the back-off of transient failures
	 */
	public TransientAwareBackOff(BackOff permanent, BackOff transientBackOff) {
		this.permanent = permanent;
		this.transientBackOff = transientBackOff;
	}

	@Override
	public void failedDelivery(ConsumerRecord<?, ?> record, @Nullable Exception ex, int deliveryAttempt) {
		this.current.set(ex);
	}

	@Override
	public void recovered(ConsumerRecord<?, ?> record, @Nullable Exception ex) {
		this.current.remove();
	}

	/**
	 * A failure of a whole batch, retried by the handler's fallback batch handler (a failure that names no record:
	 * the outputs of a committed batch not delivered, a listener that throws another exception).
	 */
	@Override
	public void failedDelivery(ConsumerRecords<?, ?> records, Exception ex, int deliveryAttempt) {
		this.current.set(ex);
	}

	@Override
	public void recovered(ConsumerRecords<?, ?> records, Exception ex) {
		this.current.remove();
	}

	/** Learn the failure a handler is about to handle, before it asks for an interval. */
	void failing(Exception ex) {
		this.current.set(ex);
	}

	/**
	 * Put a back-off before other retry listeners, once.
	 * @param backOff the back-off that must learn each failure first
	 * @param listeners the other listeners, may include {@code backOff}
	 * @return {@code backOff} followed by the other listeners
	 */
	static RetryListener[] first(TransientAwareBackOff backOff, RetryListener... listeners) {
		return Stream.concat(Stream.of(backOff), Arrays.stream(listeners).filter((listener) -> listener != backOff))
			.toArray(RetryListener[]::new);
	}

	@Override
	public BackOffExecution start() {
		return new Execution();
	}

	/** One record's attempts: one execution of each back-off, each advanced only by failures of its kind. */
	private final class Execution implements BackOffExecution {

		private @Nullable BackOffExecution permanentExecution;

		private @Nullable BackOffExecution transientExecution;

		@Override
		public long nextBackOff() {
			Exception failure = TransientAwareBackOff.this.current.get();
			if (failure == null || TransientFailures.isTransient(failure)) {
				if (this.transientExecution == null) {
					this.transientExecution = TransientAwareBackOff.this.transientBackOff.start();
				}
				return this.transientExecution.nextBackOff();
			}
			if (this.permanentExecution == null) {
				this.permanentExecution = TransientAwareBackOff.this.permanent.start();
			}
			return this.permanentExecution.nextBackOff();
		}

	}

}
