package dev.idempotent.kafka.error;

import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.kafka.NullPayloadException;
import dev.idempotent.kafka.support.FailedDeliveries;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.retention.LateRecordException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.listener.ConsumerRecordRecoverer;

/**
 * Decorates a recoverer (typically a {@code DeadLetterPublishingRecoverer}): once the delegate has recovered a
 * record whose idempotent work failed, the record's key is marked FAILED, with the attempts and the last error,
 * in a transaction of its own. If the delegate throws, nothing is marked and the error handler keeps the record;
 * if the marking fails, it is logged at WARN and the record stays recovered. Every recovered record gets one WARN
 * naming it and why (a rejected key's reason, or the root cause's type; never the message, which can quote the key).
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
		logger.warn("Dead-lettered {}-{}@{}: {}; see docs/operations.md, '{}'", record.topic(), record.partition(),
				record.offset(), cause(exception), (rejection(exception) != null) ? "Rejected keys" : "Dead-lettered records");
		FailedDeliveries.take(record).ifPresent((failure) -> record(failure, exception));
	}

	/**
	 * Describe why a record was dead-lettered without the failure's message, which can quote the key: the reason
	 * of a rejected key, else the type of the root cause (the dead-letter record's headers carry the message).
	 */
	private static String cause(Exception exception) {
		InvalidIdempotencyKeyException rejection = rejection(exception);
		if (rejection != null) {
			return "its idempotency key was rejected (" + rejection.getReason() + ")";
		}
		Throwable root = exception;
		for (Throwable cause = exception; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof LateRecordException) {
				return "it is older than the retention period (LATE_RECORD)";
			}
			if (cause instanceof NullPayloadException) {
				return "its payload in the batch is null (NULL_PAYLOAD)";
			}
		}
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return "its processing kept failing (" + root.getClass().getName() + ")";
	}

	private static @Nullable InvalidIdempotencyKeyException rejection(Throwable exception) {
		for (Throwable cause = exception; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof InvalidIdempotencyKeyException invalid) {
				return invalid;
			}
		}
		return null;
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
