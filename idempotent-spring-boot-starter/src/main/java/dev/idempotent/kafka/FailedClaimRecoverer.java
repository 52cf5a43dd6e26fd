package dev.idempotent.kafka;

import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.key.KeyMasker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.listener.ConsumerRecordRecoverer;

/**
 * Decorates a recoverer (typically a {@code DeadLetterPublishingRecoverer}): once the delegate has recovered a
 * record whose idempotent work failed, the record's key is marked FAILED, with the attempts and the last error,
 * in a transaction of its own. If the delegate throws, nothing is marked and the error handler keeps the record;
 * if the marking fails, it is logged at WARN and the record stays recovered.
 * Records rejected for a bad key have no claim and are only passed to the delegate.
 * <p>The starter's error handler uses it; an application with its own {@code DefaultErrorHandler} wraps its
 * recoverer with it to get the same FAILED rows. It must run on the consumer thread, as recoverers of
 * spring-kafka's error handlers do.
 *
 * @since 0.1.0
 */
public final class FailedClaimRecoverer implements ConsumerRecordRecoverer {

	private static final Logger logger = LoggerFactory.getLogger(FailedClaimRecoverer.class);

	private final ConsumerRecordRecoverer delegate;

	private final FailureRecorder recorder;

	private final KeyMasker masker;

	/**
	 * Create a recoverer that masks keys in its log lines.
	 * @param delegate the recoverer that disposes of the record, e.g. publishes it to the dead-letter topic
	 * @param recorder writes the FAILED row
	 */
	public FailedClaimRecoverer(ConsumerRecordRecoverer delegate, FailureRecorder recorder) {
		this(delegate, recorder, KeyMasker.MASKED);
	}

	/**
	 * Create a recoverer.
	 * @param delegate the recoverer that disposes of the record, e.g. publishes it to the dead-letter topic
	 * @param recorder writes the FAILED row
	 * @param masker renders keys in log lines
	 */
	public FailedClaimRecoverer(ConsumerRecordRecoverer delegate, FailureRecorder recorder, KeyMasker masker) {
		this.delegate = delegate;
		this.recorder = recorder;
		this.masker = masker;
	}

	/**
	 * Recover a record.
	 * @param record the record whose retries are spent
	 * @param exception the last failure
	 * @throws RuntimeException whatever the delegate or the database throws
	 */
	@Override
	public void accept(ConsumerRecord<?, ?> record, Exception exception) {
		this.delegate.accept(record, exception);
		FailedDeliveries.take(record).ifPresent((failure) -> record(failure, exception));
	}

	/**
	 * Mark the key FAILED. The record is already safe in the dead-letter topic, so a failure here is logged, not
	 * thrown: throwing would make the error handler recover the record again and publish it again, endlessly if
	 * the failure is permanent. Without the FAILED row, a replay of the record simply claims the key afresh.
	 */
	private void record(FailedDeliveries.Failure failure, Exception exception) {
		try {
			this.recorder.record(failure.request(), failure.attempts(), exception);
		}
		catch (RuntimeException ex) {
			logger.warn("Dead-lettered scope={} key={} but could not mark it FAILED; a replay will claim it afresh",
					failure.request().scope(), this.masker.mask(failure.request().key()), ex);
		}
	}

}
