package dev.idempotent.kafka.error;

import java.util.List;

import dev.idempotent.kafka.offset.StoredOffsets;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RetryListener;

/**
 * A {@link DefaultAfterRollbackProcessor} (the failure handling of containers with a Kafka transaction manager)
 * whose back-off is a {@link TransientAwareBackOff} that stays registered as its first retry listener, for the
 * reason {@link TransientAwareErrorHandler} gives. The offset of a recovered record is committed in the Kafka
 * transaction in which it was recovered. With offsets stored with the claims, the seeks to stored offsets in progress
 * are restored after its own ({@link StoredOffsets#restoreSeeks}).
 * <p>Thread-safe as {@link DefaultAfterRollbackProcessor} is: configure it before the containers start.
 *
 * @param <K> the key type
 * @param <V> the value type
 * @since 0.1.0
 */
public class TransientAwareAfterRollbackProcessor<K, V> extends DefaultAfterRollbackProcessor<K, V> {

	private final TransientAwareBackOff backOff;

	/**
	 * Create a processor.
	 * @param recoverer disposes of a record whose retries are spent, e.g. publishes it to the dead-letter topic
	 * @param backOff the back-off, also registered as the first retry listener
	 * @param kafkaOperations the transactional template that commits the recovered record's offset
	 */
	public TransientAwareAfterRollbackProcessor(ConsumerRecordRecoverer recoverer, TransientAwareBackOff backOff,
			KafkaOperations<?, ?> kafkaOperations) {
		super(recoverer, backOff, kafkaOperations, true);
		this.backOff = backOff;
		setRetryListeners();
		setResetStateOnExceptionChange(false);
	}

	/** Process a failed record's rollback, then restore the seeks to stored offsets its seeks may have undone. */
	@Override
	public void process(List<ConsumerRecord<K, V>> records, Consumer<K, V> consumer,
			@Nullable MessageListenerContainer container, Exception exception, boolean recoverable, EOSMode eosMode) {
		try {
			super.process(records, consumer, container, exception, recoverable, eosMode);
		}
		finally {
			StoredOffsets.restoreSeeks(consumer);
		}
	}

	/** Process a failed batch's rollback, then restore the seeks to stored offsets its seeks may have undone. */
	@Override
	public void processBatch(ConsumerRecords<K, V> records, List<ConsumerRecord<K, V>> recordList,
			Consumer<K, V> consumer, @Nullable MessageListenerContainer container, Exception exception,
			boolean recoverable, EOSMode eosMode) {
		try {
			super.processBatch(records, recordList, consumer, container, exception, recoverable, eosMode);
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
