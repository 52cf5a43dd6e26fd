package dev.idempotent.kafka.method;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * A {@code ConsumerRecords} cut down to some records of a poll keeps the poll's next offsets where kafka-clients has
 * them: version 4 added {@code nextOffsets()} and the constructor that takes them; version 3.9 (Spring Boot 3.5's) has
 * neither, and the cut-down records then carry none, as every {@code ConsumerRecords} there. Read by reflection once,
 * since this module compiles against 3.9. Thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class NextOffsets {

	private static final @Nullable Method NEXT_OFFSETS = method();

	private static final @Nullable Constructor<?> WITH_NEXT_OFFSETS = constructor();

	private NextOffsets() {
	}

	/**
	 * Records of a poll, with the poll's next offsets where kafka-clients has them.
	 * @param records the records, by partition
	 * @param poll the poll they were cut from, if known
	 * @return the records
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static ConsumerRecords<?, ?> consumerRecords(Map<TopicPartition, List<ConsumerRecord>> records,
			@Nullable ConsumerRecords<?, ?> poll) {
		if (NEXT_OFFSETS != null && WITH_NEXT_OFFSETS != null && poll != null) {
			try {
				return (ConsumerRecords<?, ?>) WITH_NEXT_OFFSETS.newInstance(records, NEXT_OFFSETS.invoke(poll));
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException("Could not create ConsumerRecords with the poll's next offsets", ex);
			}
		}
		return new ConsumerRecords(records);
	}

	private static @Nullable Method method() {
		try {
			return ConsumerRecords.class.getMethod("nextOffsets");
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	private static @Nullable Constructor<?> constructor() {
		try {
			return ConsumerRecords.class.getConstructor(Map.class, Map.class);
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

}
