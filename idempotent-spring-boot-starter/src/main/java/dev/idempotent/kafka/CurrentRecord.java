package dev.idempotent.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * The record being delivered on the current consumer thread, bound by {@link RecordCapturingInterceptor} for
 * the time of one listener invocation.
 */
final class CurrentRecord {

	private static final ThreadLocal<ConsumerRecord<?, ?>> current = new ThreadLocal<>();

	private CurrentRecord() {
	}

	static void bind(ConsumerRecord<?, ?> record) {
		current.set(record);
	}

	static void clear() {
		current.remove();
	}

	static @Nullable ConsumerRecord<?, ?> get() {
		return current.get();
	}

}
