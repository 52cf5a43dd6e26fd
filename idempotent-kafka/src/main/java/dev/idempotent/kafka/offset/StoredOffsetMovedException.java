package dev.idempotent.kafka.offset;

import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * A claim transaction found another offset stored for its partition than the one its consumer stored last: the database
 * lost commits (a failover to a replica that lacked them, a restore) or another consumer of the group took the partition
 * over. The transaction rolled back; the consumer reads the partition again from the stored offset. Transient: the
 * record is retried, never dead-lettered.
 *
 * @since 0.1.0
 */
public class StoredOffsetMovedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient TopicPartition partition;

	StoredOffsetMovedException(String group, TopicPartition partition, @Nullable String expected) {
		super("The stored offset of consumer group '" + group + "' on " + partition
				+ ((expected != null) ? " is no longer " + expected + ", the one this consumer stored last"
						: " moved since this consumer read it")
				+ ": the database lost commits (a failover, a restore) or another consumer took the partition over."
				+ " The transaction rolled back; the partition is read again from the stored offset");
		this.partition = partition;
	}

	/**
	 * The partition whose stored offset moved.
	 * @return the partition
	 */
	public TopicPartition getPartition() {
		return this.partition;
	}

}
