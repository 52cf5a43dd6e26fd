package dev.idempotent.kafka.error;

import java.util.List;

import dev.idempotent.kafka.offset.StoredOffsets;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RetryListener;

/**
 * A {@link DefaultErrorHandler} whose back-off is a {@link TransientAwareBackOff} that stays registered as its first
 * retry listener: an application that sets retry listeners of its own on the handler (for metrics or logging, with
 * {@link #setRetryListeners}) adds them after it instead of replacing it. Replaced, the back-off would no longer learn
 * each attempt's failure, would take every failure for a transient one, and would retry a failing record forever
 * instead of dead-lettering it. With offsets stored with the claims, the seeks to stored offsets in progress are
 * restored after its own ({@link StoredOffsets#restoreSeeks}): it seeks to the records of the poll as it came, before
 * records were skipped.
 * <p>Thread-safe as {@link DefaultErrorHandler} is: configure it before the containers start.
 *
 * @since 0.1.0
 */
public class TransientAwareErrorHandler extends DefaultErrorHandler {

	private final TransientAwareBackOff backOff;

	/**
	 * Create a handler.
	 * @param recoverer disposes of a record whose retries are spent, e.g. publishes it to the dead-letter topic
	 * @param backOff the back-off, also registered as the first retry listener
	 */
	public TransientAwareErrorHandler(ConsumerRecordRecoverer recoverer, TransientAwareBackOff backOff) {
		super(recoverer, backOff);
		this.backOff = backOff;
		setRetryListeners();
		setResetStateOnExceptionChange(false);
	}

	/**
	 * Handle a batch listener's failure; the back-off learns it first, so that the first interval of a whole batch's
	 * retries (which spring-kafka asks for before it tells the retry listeners) follows it, not a failure an earlier
	 * delivery left on the thread.
	 */
	@Override
	public void handleBatch(Exception thrownException, ConsumerRecords<?, ?> data, Consumer<?, ?> consumer,
			MessageListenerContainer container, Runnable invokeListener) {
		this.backOff.failing(thrownException);
		try {
			super.handleBatch(thrownException, data, consumer, container, invokeListener);
		}
		finally {
			StoredOffsets.restoreSeeks(consumer);
		}
	}

	/** Like {@link #handleBatch}: the back-off learns the failure first. */
	@Override
	public <K, V> ConsumerRecords<K, V> handleBatchAndReturnRemaining(Exception thrownException,
			ConsumerRecords<?, ?> data, Consumer<?, ?> consumer, MessageListenerContainer container,
			Runnable invokeListener) {
		this.backOff.failing(thrownException);
		try {
			return super.handleBatchAndReturnRemaining(thrownException, data, consumer, container, invokeListener);
		}
		finally {
			StoredOffsets.restoreSeeks(consumer);
		}
	}

	/** Handle a failed record, then restore the seeks to stored offsets its seeks may have undone. */
	@Override
	public void handleRemaining(Exception thrownException, List<ConsumerRecord<?, ?>> records, Consumer<?, ?> consumer,
			MessageListenerContainer container) {
		try {
			super.handleRemaining(thrownException, records, consumer, container);
		}
		finally {
			StoredOffsets.restoreSeeks(consumer);
		}
	}

	/**
	 * Set the retry listeners; the back-off stays the first of them.
	 * @param listeners the application's listeners, called after the back-off's
	 */
	@Override
	public void setRetryListeners(RetryListener... listeners) {
		super.setRetryListeners(TransientAwareBackOff.first(this.backOff, listeners));
	}

}
