package dev.idempotent.kafka.support;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * A Kafka {@link ConsumerInterceptor} that binds the records each poll returned to the polling thread, the
 * consumer thread of a listener container, so that the advice of a single-record {@link IdempotentListener} can ask
 * the fast path about the keys of the whole poll in one lookup ({@code PollPrefetch}) instead of one lookup per
 * record. It never changes, drops or delays a record. A poll stays bound only until its first record was delivered:
 * the advice takes it, or {@link CurrentRecordInterceptor} drops it after that record (and for batch deliveries,
 * which ask the fast path once per batch anyway); the binding is a weak reference, so a poll of a consumer that
 * neither takes nor drops it is not kept in memory once its own caller let go of it.
 * <p>Installed by {@link PolledRecordsInstaller} through {@code interceptor.classes}; Kafka creates one instance per
 * consumer with its public no-argument constructor. Thread-safe (the binding is per thread).
 *
 * @since 0.1.0
 */
public final class PolledRecords implements ConsumerInterceptor<Object, Object> {

	/**
	 * Weakly: the container holds the records strongly while it delivers them; once it dropped them, a binding
	 * nobody took (a consumer without this library's record interceptor) does not keep them in memory.
	 */
	private static final ThreadLocal<WeakReference<ConsumerRecords<?, ?>>> polled = new ThreadLocal<>();

	/** Created by the Kafka consumer. */
	public PolledRecords() {
	}

	@Override
	public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
		if (records.isEmpty()) {
			polled.remove();
		}
		else {
			polled.set(new WeakReference<>(records));
		}
		return records;
	}

	@Override
	public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
	}

	@Override
	public void close() {
		polled.remove();
	}

	@Override
	public void configure(Map<String, ?> configs) {
	}

	/**
	 * Take the records of the last poll on this thread, once.
	 * @return the records, or {@code null} when none are bound (taken or dropped already, or no poll through this
	 * interceptor)
	 */
	public static @Nullable ConsumerRecords<?, ?> take() {
		WeakReference<ConsumerRecords<?, ?>> records = polled.get();
		if (records == null) {
			return null;
		}
		polled.remove();
		return records.get();
	}

	/** Forget the records of the last poll on this thread. */
	static void drop() {
		polled.remove();
	}

	/**
	 * The value of {@code interceptor.classes} with this interceptor added after the configured ones.
	 * @param configured the configured value: {@code null}, a comma-separated class list, a class, or a list of
	 * classes or class names
	 * @return the value to configure, or {@code null} when this interceptor is configured already
	 */
	static @Nullable List<Object> addedTo(@Nullable Object configured) {
		List<Object> classes = new ArrayList<>();
		if (configured instanceof String names) {
			Arrays.stream(names.split(",")).map(String::trim).filter((name) -> !name.isEmpty()).forEach(classes::add);
		}
		else if (configured instanceof Collection<?> list) {
			classes.addAll(list);
		}
		else if (configured != null) {
			classes.add(configured);
		}
		for (Object entry : classes) {
			if (entry == PolledRecords.class || PolledRecords.class.getName().equals(entry)) {
				return null;
			}
		}
		classes.add(PolledRecords.class);
		return classes;
	}

}
