package dev.idempotent.kafka.reply;

import dev.idempotent.capture.PendingReply;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.AcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The record listener that {@link ReplyFailureInstaller} puts around the listener of a {@code @SendTo}
 * {@link IdempotentListener} method's container: spring-kafka sends the reply inside its listener call, in a completion
 * stage whose failure it neither logs nor passes on, so the record's offset would be committed after a reply that was
 * never delivered. Once the wrapped listener returned, a reply failure recorded by {@link PendingReply} is thrown, so
 * the container's error handler retries the record; the claim committed, so the retry is a hit that sends the reply
 * stored with it. Seek callbacks are passed on. Thread-safe as the wrapped listener is.
 *
 * @param <K> the key type
 * @param <V> the value type
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class ReplyFailureListener<K, V> extends AbstractDelegatingMessageListenerAdapter<MessageListener<K, V>>
		implements AcknowledgingConsumerAwareMessageListener<K, V> {

	ReplyFailureListener(MessageListener<K, V> delegate) {
		super(delegate);
	}

	@Override
	public void onMessage(ConsumerRecord<K, V> record, @Nullable Acknowledgment acknowledgment,
			@Nullable Consumer<?, ?> consumer) {
		deliver(record, acknowledgment, consumer);
	}

	// the container calls the variant of the innermost listener's type (it looks through delegating listeners)

	@Override
	public void onMessage(ConsumerRecord<K, V> record) {
		deliver(record, null, null);
	}

	@Override
	public void onMessage(ConsumerRecord<K, V> record, @Nullable Acknowledgment acknowledgment) {
		deliver(record, acknowledgment, null);
	}

	@Override
	public void onMessage(ConsumerRecord<K, V> record, @Nullable Consumer<?, ?> consumer) {
		deliver(record, null, consumer);
	}

	private void deliver(ConsumerRecord<K, V> record, @Nullable Acknowledgment acknowledgment,
			@Nullable Consumer<?, ?> consumer) {
		PendingReply.takeFailure(); // a failure of an earlier record is not this one's
		switch (this.delegateType) {
			case ACKNOWLEDGING_CONSUMER_AWARE -> this.delegate.onMessage(record, acknowledgment, consumer);
			case ACKNOWLEDGING -> this.delegate.onMessage(record, acknowledgment);
			case CONSUMER_AWARE -> this.delegate.onMessage(record, consumer);
			case SIMPLE -> this.delegate.onMessage(record);
		}
		RuntimeException failed = PendingReply.takeFailure();
		if (failed != null) {
			throw failed;
		}
	}

}
