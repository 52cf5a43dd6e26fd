package dev.idempotent.kafka.listener;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

/**
 * Where each record of a batch delivery sits in the batch the container polled. The two differ when a container
 * factory's {@code RecordFilterStrategy} dropped records: the listener method receives the kept ones, while
 * spring-kafka's batch {@code Acknowledgment} ({@code acknowledge(int)}, {@code nack(int, Duration)}) indexes the
 * polled batch, with the dropped records in it. Immutable and thread-safe.
 */
final class ContainerBatchPositions {

	private final int[] positions;

	private final int size;

	private ContainerBatchPositions(int[] positions, int size) {
		this.positions = positions;
		this.size = size;
	}

	/**
	 * The positions of a delivery that is the whole polled batch.
	 * @param records how many records the delivery holds
	 * @return positions that map each record to itself
	 */
	static ContainerBatchPositions identity(int records) {
		int[] positions = new int[records];
		for (int i = 0; i < records; i++) {
			positions[i] = i;
		}
		return new ContainerBatchPositions(positions, records);
	}

	/**
	 * The positions of the delivered records in the polled batch, matched by topic, partition and offset.
	 * @param delivered the records the listener receives, in their order
	 * @param polled the batch the container polled (after its batch interceptors), or {@code null} if unknown
	 * @return the positions; {@link #identity} if the polled batch is unknown or does not hold every delivered
	 * record in the same order
	 */
	static ContainerBatchPositions of(List<ConsumerRecord<?, ?>> delivered, @Nullable ConsumerRecords<?, ?> polled) {
		if (polled == null || polled.count() == delivered.size()) {
			return identity(delivered.size());
		}
		List<ConsumerRecord<?, ?>> all = new ArrayList<>(polled.count());
		polled.forEach(all::add);
		int[] positions = new int[delivered.size()];
		int next = 0;
		for (int i = 0; i < delivered.size(); i++) {
			ConsumerRecord<?, ?> record = delivered.get(i);
			while (next < all.size() && !sameRecord(all.get(next), record)) {
				next++;
			}
			if (next == all.size()) {
				return identity(delivered.size());
			}
			positions[i] = next++;
		}
		return new ContainerBatchPositions(positions, all.size());
	}

	/**
	 * Return how many records the polled batch holds.
	 * @return the size of the container's batch
	 */
	int size() {
		return this.size;
	}

	/**
	 * Return the position in the polled batch of a delivered record.
	 * @param position the record's position in the delivery
	 * @return its position in the container's batch
	 */
	int of(int position) {
		return this.positions[position];
	}

	/**
	 * Return the positions in the polled batch of the records the listener does not receive (filtered out).
	 * @return a new set
	 */
	BitSet notDelivered() {
		BitSet dropped = new BitSet(this.size);
		dropped.set(0, this.size);
		for (int position : this.positions) {
			dropped.clear(position);
		}
		return dropped;
	}

	private static boolean sameRecord(ConsumerRecord<?, ?> a, ConsumerRecord<?, ?> b) {
		return a.offset() == b.offset() && a.partition() == b.partition() && a.topic().equals(b.topic());
	}

}
