package dev.idempotent.kafka.group;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.AcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.AcknowledgingMessageListener;
import org.springframework.kafka.listener.BatchAcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.ConsumerAwareMessageListener;
import org.springframework.kafka.listener.ConsumerSeekAware;
import org.springframework.kafka.listener.ListenerType;
import org.springframework.kafka.listener.ListenerUtils;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The message listener that {@link GroupCommitInstaller} puts on the container of a single-record
 * {@link IdempotentListener} method with group commit. It is a batch listener, so the container hands it the records
 * of each poll and commits their offsets after it returns (spring-kafka decides batch or record mode from the
 * listener's type); it delivers them to the record listener the container had (the listener adapter, and a record
 * filter around it if any), with a {@link GroupCommitDelivery}. Seek callbacks are passed on to that listener.
 * Thread-safe (shared by the consumer threads of a concurrent container).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class GroupCommitListener<K, V> implements BatchAcknowledgingConsumerAwareMessageListener<K, V>, ConsumerSeekAware {

	private final Object delegate;

	private final ListenerType delegateType;

	private final Supplier<TransactionalClaimExecutor> executor;

	private final GroupSize sizes;

	/**
	 * Create the listener.
	 * @param delegate the container's record listener
	 * @param executor the claim executor
	 * @param sizes the group sizing of this listener
	 */
	GroupCommitListener(Object delegate, Supplier<TransactionalClaimExecutor> executor, GroupSize sizes) {
		this.delegate = delegate;
		this.delegateType = ListenerUtils.determineListenerType(delegate);
		this.executor = executor;
		this.sizes = sizes;
	}

	/**
	 * The record listener the records are delivered to.
	 * @return the container's original listener
	 */
	Object delegate() {
		return this.delegate;
	}

	@Override
	public void onMessage(List<ConsumerRecord<K, V>> records, @Nullable Acknowledgment acknowledgment,
			@Nullable Consumer<?, ?> consumer) {
		new GroupCommitDelivery(this.executor.get(), this.sizes)
			.deliver(records, (record) -> GroupCollector.prepare(record, () -> dispatch(record, consumer)));
	}

	/** Call the record listener as the container would for one record, without an acknowledgment. */
	@SuppressWarnings("unchecked")
	private void dispatch(ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer) {
		ConsumerRecord<K, V> typed = (ConsumerRecord<K, V>) record;
		switch (this.delegateType) {
			case ACKNOWLEDGING_CONSUMER_AWARE -> ((AcknowledgingConsumerAwareMessageListener<K, V>) this.delegate)
				.onMessage(typed, null, consumer);
			case ACKNOWLEDGING -> ((AcknowledgingMessageListener<K, V>) this.delegate)
				.onMessage(typed, (Acknowledgment) null);
			case CONSUMER_AWARE -> ((ConsumerAwareMessageListener<K, V>) this.delegate).onMessage(typed, consumer);
			case SIMPLE -> ((MessageListener<K, V>) this.delegate).onMessage(typed);
		}
	}

	@Override
	public void registerSeekCallback(ConsumerSeekCallback callback) {
		if (this.delegate instanceof ConsumerSeekAware seekAware) {
			seekAware.registerSeekCallback(callback);
		}
	}

	@Override
	public void onPartitionsAssigned(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
		if (this.delegate instanceof ConsumerSeekAware seekAware) {
			seekAware.onPartitionsAssigned(assignments, callback);
		}
	}

	@Override
	public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
		if (this.delegate instanceof ConsumerSeekAware seekAware) {
			seekAware.onPartitionsRevoked(partitions);
		}
	}

	@Override
	public void onIdleContainer(Map<TopicPartition, Long> assignments, ConsumerSeekCallback callback) {
		if (this.delegate instanceof ConsumerSeekAware seekAware) {
			seekAware.onIdleContainer(assignments, callback);
		}
	}

}
