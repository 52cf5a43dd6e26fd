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
import dev.idempotent.claim.HeldOffsets;
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
 * stored last to the offset after its last record (to its first record when the transaction stored outputs a
 * redelivery must send again, {@link HeldOffsets}); when the database holds another value, the transaction rolls back
 * with a {@link StoredOffsetMovedException} and the partition is forgotten; a transaction whose work runs before the
 * one that settles it (a LEASED claim's lease) checks ({@link #check}) that the stored offset did not move;</li>
 * <li>a record of a partition it does not know (forgotten, or assigned without {@link #assigned} being called) is
 * admitted ({@link #admit}) only if it is at the stored offset; otherwise the consumer seeks to the stored offset (to
 * the partition's beginning when the database lost the row it had stored) and skips records until it fetches from
 * there: the target itself, or, when it is gone (compacted, a transaction marker, past retention), the first record
 * two fetches from the target start at. A seek by someone else in between (an error handler's) is undone.</li>
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

	/**
	 * Per consumer thread: what this consumer believes its group's stored offsets are (static: the error handler, which
	 * has no reference to this bean, restores the seeks in progress on its thread).
	 */
	private static final ThreadLocal<Map<TopicPartition, Position>> positions = ThreadLocal.withInitial(HashMap::new);

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
		Map<TopicPartition, Long> next = nextOffsets(sources, HeldOffsets.held());
		if (group == null || next.isEmpty()) {
			return null; // not on a consumer thread, or nothing consumed: nothing to store
		}
		Map<TopicPartition, Position> known = positions.get();
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
		Map<TopicPartition, Position> known = positions.get();
		for (TopicPartition partition : nextOffsets(sources, false).keySet()) {
			Position position = known.get(partition);
			OptionalLong stored = this.store.find(group, partition.topic(), partition.partition());
			Long expected = expected(position);
			if (!believed(position) || stored.isPresent() != (expected != null)
					|| (expected != null && stored.getAsLong() != expected)) {
				throw moved(group, partition, position, known);
			}
		}
	}

	/**
	 * The offset each partition of the deliveries is to store, in one order for every transaction (its lock order):
	 * after the last delivery, or at the first when {@code held}.
	 */
	private static Map<TopicPartition, Long> nextOffsets(List<@Nullable DeliverySource> sources, boolean held) {
		Map<TopicPartition, Long> next = new TreeMap<>(PARTITION_ORDER);
		for (DeliverySource source : sources) {
			if (source != null) {
				TopicPartition partition = new TopicPartition(source.topic(), source.partition());
				if (held) {
					next.merge(partition, source.offset(), Math::min);
				}
				else {
					next.merge(partition, source.offset() + 1, Math::max);
				}
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
		Long expected = expected(position);
		boolean hadRow = (position instanceof Position.Forgotten forgotten) ? forgotten.hadRow() : expected != null;
		known.put(partition, new Position.Forgotten(hadRow));
		StoredOffsetMovedException moved = new StoredOffsetMovedException(group, partition,
				believed(position) ? ((expected != null) ? expected.toString() : "absent") : null);
		logger.warn(moved.getMessage());
		return moved;
	}

	/**
	 * Partitions were assigned to the consumer: seek each to its stored offset, if one is stored.
	 * @param consumer the consumer, on its own thread
	 * @param partitions the newly assigned partitions
	 * @throws org.springframework.dao.DataAccessException if the stored offsets cannot be read (the partitions are
	 * then unknown: their first records make the consumer read them)
	 */
	public void assigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
		String group = KafkaUtils.getConsumerGroupId();
		Map<TopicPartition, Position> known = positions.get();
		known.keySet().removeAll(partitions);
		if (group == null) {
			return;
		}
		for (TopicPartition partition : partitions) {
			OptionalLong stored = this.store.find(group, partition.topic(), partition.partition());
			if (stored.isPresent()) {
				consumer.seek(partition, stored.getAsLong());
				known.put(partition, new Position.Seeking(stored.getAsLong(), false, null));
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
		positions.get().keySet().removeAll(partitions);
	}

	/**
	 * Tell whether a record may be given to the listener (see the class description).
	 * @param record the record about to be delivered
	 * @param consumer the consumer, on its own thread
	 * @return whether to deliver it; {@code false}: skip it (the consumer reads it, or what replaces it, again)
	 * @throws org.springframework.dao.DataAccessException if the stored offset cannot be read
	 */
	public boolean admit(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer) {
		TopicPartition partition = new TopicPartition(record.topic(), record.partition());
		Map<TopicPartition, Position> known = positions.get();
		Position position = known.get(partition);
		if (position == null || position instanceof Position.Forgotten) {
			String group = KafkaUtils.getConsumerGroupId();
			if (group == null) {
				return true; // a consumer without a group stores no offsets
			}
			OptionalLong stored = this.store.find(group, record.topic(), record.partition());
			if (stored.isEmpty()) {
				if (position instanceof Position.Forgotten forgotten && forgotten.hadRow()) {
					logger.warn("The database holds no stored offset of consumer group '{}' on {} any more, though this"
							+ " consumer stored one: it lost every commit since the partition's first. Reading the"
							+ " partition from its beginning; the records whose claims it holds are hits", group, partition);
					return seek(consumer, known, partition, new Position.Seeking(0, true, null));
				}
				known.put(partition, new Position.Absent());
				return true;
			}
			if (stored.getAsLong() == record.offset()) {
				known.put(partition, new Position.Stored(record.offset()));
				return true;
			}
			logger.info("Reading {} of group {} again from its stored offset {}, not from {}", partition, group,
					stored.getAsLong(), record.offset());
			return seek(consumer, known, partition, new Position.Seeking(stored.getAsLong(), false, null));
		}
		if (position instanceof Position.Seeking seeking) {
			return fetchedFromTarget(record, consumer, known, partition, seeking);
		}
		return true;
	}

	/**
	 * Whether a record of a partition the consumer seeks is the first fetched from the seek's target. Records fetched
	 * before the seek (at or past the position it set; below it while no fetch followed) are skipped.
	 * A record past the target means that the target is gone (compacted, a transaction marker, past retention) or that
	 * someone else seeked the partition since: seek again, and when the fetch from the target starts at the same record
	 * twice, take it (the library's error handlers restore the seek after theirs, {@link #restoreSeeks}). A record below
	 * a target beyond the partition's log (the log lost records, the topic was created again) is taken.
	 */
	private boolean fetchedFromTarget(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer,
			Map<TopicPartition, Position> known, TopicPartition partition, Position.Seeking seeking) {
		if (!consumer.assignment().contains(partition)) {
			return false; // revoked meanwhile: its new owner reads it
		}
		if (record.offset() >= consumer.position(partition)) {
			return false; // fetched before the seek
		}
		long offset = record.offset();
		if (seeking.beginning()) {
			return takeTwice(record, consumer, known, partition, seeking, new Position.Absent());
		}
		if (offset == seeking.target()) {
			known.put(partition, new Position.Stored(seeking.target()));
			return true;
		}
		if (offset > seeking.target()) {
			return takeTwice(record, consumer, known, partition, seeking, new Position.Stored(seeking.target()));
		}
		if (consumer.position(partition) == seeking.target()) {
			return false; // fetched before a seek forwards to the target, which no fetch followed yet
		}
		Long end = consumer.endOffsets(List.of(partition)).get(partition);
		if (end == null || end >= seeking.target()) {
			return seek(consumer, known, partition, seeking); // someone else moved the consumer below the target
		}
		logger.warn("The stored offset {} of {} is beyond the partition's log, which ends at {} (the log lost records, or"
				+ " the topic was created again); continuing from {}", seeking.target(), partition, end, offset);
		known.put(partition, new Position.Stored(seeking.target()));
		return true;
	}

	/** Take the record if the fetch from the seek's target started at it before, else seek again and remember it. */
	private static boolean takeTwice(ConsumerRecord<?, ?> record, Consumer<?, ?> consumer,
			Map<TopicPartition, Position> known, TopicPartition partition, Position.Seeking seeking, Position taken) {
		Long before = seeking.fetchedFrom();
		if (before != null && before == record.offset()) {
			known.put(partition, taken);
			return true;
		}
		return seek(consumer, known, partition,
				new Position.Seeking(seeking.target(), seeking.beginning(), record.offset()));
	}

	/**
	 * After an error handler (or after-rollback processor) seeked the consumer to the records of a failed delivery, which
	 * it takes from the poll as it came, before records were skipped: seek the partitions this consumer is seeking to
	 * their stored offset again. Call on the consumer thread, after the handler's seeks.
	 * @param consumer the consumer
	 */
	public static void restoreSeeks(Consumer<?, ?> consumer) {
		Map<TopicPartition, Position> known = positions.get();
		if (known.isEmpty()) {
			return;
		}
		for (Map.Entry<TopicPartition, Position> entry : List.copyOf(known.entrySet())) {
			if (entry.getValue() instanceof Position.Seeking seeking && consumer.assignment().contains(entry.getKey())) {
				seek(consumer, known, entry.getKey(), seeking);
			}
		}
	}

	private static boolean seek(Consumer<?, ?> consumer, Map<TopicPartition, Position> known, TopicPartition partition,
			Position.Seeking seeking) {
		if (seeking.beginning()) {
			consumer.seekToBeginning(List.of(partition));
		}
		else {
			consumer.seek(partition, seeking.target());
		}
		known.put(partition, seeking);
		return false;
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

		/**
		 * The consumer seeks to {@code target} (to the partition's beginning when {@code beginning}: the database
		 * stores none) and skips what it fetched before; {@code fetchedFrom} is where the last fetch after a seek
		 * started, if it was not the target.
		 */
		record Seeking(long target, boolean beginning, @Nullable Long fetchedFrom) implements Position {
		}

		/** A transaction found the stored offset moved; {@code hadRow}: this consumer had seen it stored. */
		record Forgotten(boolean hadRow) implements Position {
		}

	}

}
