package dev.idempotent.kafka.offset;

import java.util.Collection;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;

/**
 * Tells the {@link StoredOffsets} which partitions a consumer is assigned and loses, so that it seeks each assigned
 * partition to its stored offset before the first records are fetched; then calls the application's own rebalance
 * listener, if the container factory had one. Thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 *
 * @since 0.1.0
 */
public final class StoredOffsetsRebalanceListener implements ConsumerAwareRebalanceListener {

	private static final Logger logger = LoggerFactory.getLogger(StoredOffsetsRebalanceListener.class);

	private final Supplier<StoredOffsets> offsets;

	private final @Nullable ConsumerRebalanceListener delegate;

	/**
	 * Create a listener.
	 * @param offsets the stored offsets, looked up on the first rebalance
	 * @param delegate the application's rebalance listener, or {@code null}
	 */
	public StoredOffsetsRebalanceListener(Supplier<StoredOffsets> offsets, @Nullable ConsumerRebalanceListener delegate) {
		this.offsets = offsets;
		this.delegate = delegate;
	}

	/**
	 * The application's rebalance listener this one calls.
	 * @return the listener, or {@code null}
	 */
	public @Nullable ConsumerRebalanceListener getDelegate() {
		return this.delegate;
	}

	@Override
	public void onPartitionsRevokedBeforeCommit(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsRevokedBeforeCommit(consumer, partitions);
		}
		else if (this.delegate != null) {
			this.delegate.onPartitionsRevoked(partitions);
		}
	}

	@Override
	public void onPartitionsRevokedAfterCommit(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		this.offsets.get().revoked(partitions);
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsRevokedAfterCommit(consumer, partitions);
		}
	}

	@Override
	public void onPartitionsLost(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		this.offsets.get().revoked(partitions);
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsLost(consumer, partitions);
		}
		else if (this.delegate != null) {
			this.delegate.onPartitionsLost(partitions);
		}
	}

	@Override
	public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		try {
			this.offsets.get().assigned(consumer, partitions);
		}
		catch (RuntimeException ex) {
			// the database is unreachable: each partition's first record makes the consumer seek, once it answers
			logger.warn("Could not read the stored offsets of {}; each is read when its first record arrives",
					partitions, ex);
		}
		if (this.delegate instanceof ConsumerAwareRebalanceListener aware) {
			aware.onPartitionsAssigned(consumer, partitions);
		}
		else if (this.delegate != null) {
			this.delegate.onPartitionsAssigned(partitions);
		}
	}

}
