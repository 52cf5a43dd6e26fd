package dev.idempotent.kafka.offset;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

import dev.idempotent.claim.ClaimOffsets;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.jdbc.JdbcOffsetStore;
import dev.idempotent.kafka.method.NextOffsets;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.support.KafkaUtils;

/**
 * Consumed offsets stored with the claims, for the consumer on the calling thread (docs/clusters.md, "Offsets in the
 * claim's transaction"). Each consumer thread keeps, per assigned partition, the offset it believes the database
 * stores for its group:
 * <ul>
 * <li>on assignment ({@link #assigned}) it reads the stored offset and seeks there; a partition with no stored offset
 * starts where Kafka's committed offset says (the first claims store one);</li>
 * <li>each claim transaction ({@link #store}) moves the stored offset of its partitions from the value this consumer
 * stored last to the offset after its last record; when the database holds another value, the transaction rolls back
 * with a {@link StoredOffsetMovedException} and the partition is forgotten; a transaction whose work runs before the
 * one that settles it (a LEASED claim's lease) checks ({@link #check}) that the stored offset did not move;</li>
 * <li>a record of a partition it does not know (forgotten, or assigned without {@link #assigned} being called) is
 * admitted ({@link #admit}) only if it is at the stored offset; otherwise the consumer seeks to the stored offset and
 * the records before the seek's first ones are skipped (never given to the listener).</li>
 * </ul>
 * So a consumer never continues past records whose claims the database does not hold, and never re-reads records whose
 * claims it does hold, whatever Kafka's committed offset says. Kafka's committed offset is still committed as usual,
 * for tools and lag monitoring. Must be called on the consumer thread. Thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 *
 * @since 0.1.0
 */
public final class StoredOffsets implements ClaimOffsets {

	private static final Logger logger = LoggerFactory.getLogger(StoredOffsets.class);

	private static final Comparator<TopicPartition> PARTITION_ORDER = Comparator.comparing(TopicPartition::topic)
		.thenComparingInt(TopicPartition::partition);

	private final JdbcOffsetStore store;

	/** Per consumer thread: what this consumer believes its group's stored offsets are. */
	private final ThreadLocal<Map<TopicPartition, Position>> positions = ThreadLocal.withInitial(HashMap::new);

	/**
	 * Create the stored offsets.
	 * @param store the offset table, in the claims' database
	 */
	public StoredOffsets(JdbcOffsetStore store) {
		this.store = store;
	}

	@Override
	public @Nullable Runnable store(List<@Nullable DeliverySource> sources) {
		String group = KafkaUtils.getConsumerGroupId();
		Map<TopicPartition, Long> next = nextOffsets(sources);
		if (group == null || next.isEmpty()) {
			return null; // not on a consumer thread, or nothing consumed: nothing to store
		}
		Map<TopicPartition, Position> known = this.positions.get();
		next.forEach((partition, offset) -> {
			Position position = known.get(partition);
			if (!believed(position) || !this.store.advance(group, partition.topic(), partition.partition(),
					expected(position), offset)) {
				throw moved(group, partition, position, known);
			}
		});
		return () -> next.forEach((partition, offset) -> known.put(partition, new Position.Stored(offset)));
	}

	@Override
	public void check(List<@Nullable DeliverySource> sources) {
		String group = KafkaUtils.getConsumerGroupId();
		if (group == null) {
			return;
		}
		Map<TopicPartition, Position> known = this.positions.get();
		for (TopicPartition partition : nextOffsets(sources).keySet()) {
			Position position = known.get(partition);
			OptionalLong stored = this.store.find(group, partition.topic(), partition.partition());
			Long expected = expected(position);
			if (!believed(position) || stored.isPresent() != (expected != null)
					|| (expected != null && stored.getAsLong() != expected)) {
				throw moved(group, partition, position, known);
			}
		}
	}

	/** The next offset of each partition of the deliveries, in one order for every transaction (its lock order). */
	private static Map<TopicPartition, Long> nextOffsets(List<@Nullable DeliverySource> sources) {
		Map<TopicPartition, Long> next = new TreeMap<>(PARTITION_ORDER);
		for (DeliverySource source : sources) {
			if (source != null) {
				next.merge(new TopicPartition(source.topic(), source.partition()), source.offset() + 1, Math::max);
			}
		}
		return next;
	}

	/** Whether this consumer knows the partition's stored offset (or that none is stored). */
	private static boolean believed(@Nullable Position position) {
		return position instanceof Position.Stored || position instanceof Position.Absent;
	}

	private static @Nullable Long expected(@Nullable Position position) {
		return (position instanceof Position.Stored stored) ? Long.valueOf(stored.offset()) : null;
	}

	/** Forget the partition, so that its next record seeks to the stored offset, and say so. */
	private static StoredOffsetMovedException moved(String group, TopicPartition partition, @Nullable Position position,
			Map<TopicPartition, Position> known) {
		known.remove(partition);
		Long expected = expected(position);
		StoredOffsetMovedException moved = new StoredOffsetMovedException(group, partition,
				believed(position) ? ((expected != null) ? expected.toString() : "absent") : null);
		logger.warn(moved.getMessage());
		return moved;
	}

	/**
	 * Partitions were assigned to the consumer: seek each to its stored offset, if one is stored.
	 * @param consumer the consumer, on its own thread
	 * @param partitions the newly assigned partitions
	 */
	public void assigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		String group = consumer.groupMetadata().groupId();
		Map<TopicPartition, Position> known = this.positions.get();
		for (TopicPartition partition : partitions) {
			OptionalLong stored = this.store.find(group, partition.topic(), partition.partition());
			if (stored.isPresent()) {
				consumer.seek(partition, stored.getAsLong());
				known.put(partition, new Position.Seeking(stored.getAsLong()));
				logger.debug("Seeking {} of group {} to its stored offset {}", partition, group, stored.getAsLong());
			}
			else {
				known.put(partition, new Position.Absent());
			}
		}
	}

	/**
	 * Partitions were revoked from (or lost by) the consumer: forget them.
	 * @param partitions the partitions
	 */
	public void revoked(Collection<TopicPartition> partitions) {
		this.positions.get().keySet().removeAll(partitions);
	}

	/**
	 * Tell whether a record may be given to the listener. A record of a partition this consumer does not know is
	 * admitted when it is at the stored offset (or none is stored); otherwise the consumer seeks to the stored offset,
	 * and records are skipped until the first one fetched from there.
	 * @param record the record about to be delivered
	 * @param consumer the consumer, on its own thread
	 * @return whether to deliver it; {@code false}: skip it (the consumer reads it, or what replaces it, again)
	 */
	public boolean admit(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer) {
		TopicPartition partition = new TopicPartition(record.topic(), record.partition());
		Map<TopicPartition, Position> known = this.positions.get();
		Position position = known.get(partition);
		if (position == null) {
			String group = consumer.groupMetadata().groupId();
			OptionalLong stored = this.store.find(group, record.topic(), record.partition());
			if (stored.isEmpty()) {
				known.put(partition, new Position.Absent());
				return true;
			}
			if (stored.getAsLong() == record.offset()) {
				known.put(partition, new Position.Stored(record.offset()));
				return true;
			}
			logger.info("Reading {} of group {} again from its stored offset {}, not from {}", partition, group,
					stored.getAsLong(), record.offset());
			consumer.seek(partition, stored.getAsLong());
			known.put(partition, new Position.Seeking(stored.getAsLong()));
			return false;
		}
		if (position instanceof Position.Seeking seeking) {
			// fetched after the seek: at or after its target, and before the position the fetch moved the consumer to
			if (record.offset() >= seeking.offset() && record.offset() < consumer.position(partition)) {
				known.put(partition, new Position.Stored(seeking.offset()));
				return true;
			}
			return false;
		}
		return true;
	}

	/**
	 * The records of a poll that may be given to a batch listener (see {@link #admit}).
	 * @param records the poll's records
	 * @param consumer the consumer, on its own thread
	 * @param <K> the key type
	 * @param <V> the value type
	 * @return {@code records} when all are admitted, else those that are
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public <K, V> ConsumerRecords<K, V> admitted(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
		Map<TopicPartition, List<ConsumerRecord>> kept = new LinkedHashMap<>();
		boolean all = true;
		for (TopicPartition partition : records.partitions()) {
			List<ConsumerRecord> admitted = new ArrayList<>();
			for (ConsumerRecord<K, V> record : records.records(partition)) {
				if (admit(record, consumer)) {
					admitted.add(record);
				}
				else {
					all = false;
				}
			}
			if (!admitted.isEmpty()) {
				kept.put(partition, admitted);
			}
		}
		return all ? records : (ConsumerRecords<K, V>) NextOffsets.consumerRecords(kept, records);
	}

	/** What a consumer believes about a partition's stored offset. */
	private sealed interface Position {

		/** The database stores {@code offset}, as far as this consumer knows. */
		record Stored(long offset) implements Position {
		}

		/** The database stores no offset for the partition. */
		record Absent() implements Position {
		}

		/** The database stores {@code offset}; the consumer seeks there and skips what it fetched before. */
		record Seeking(long offset) implements Position {
		}

	}

}
