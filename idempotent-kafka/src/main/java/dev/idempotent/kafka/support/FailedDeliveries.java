package dev.idempotent.kafka.support;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.idempotent.claim.ClaimRequest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the advice knows about deliveries whose work failed on this consumer thread, by record coordinates:
 * the claim request and how many attempts failed. The error handler's recoverer runs on the same thread and
 * reads it to name the key in dead-letter headers and to mark the key FAILED. Bounded, so that records whose
 * partitions moved away before their retry cannot accumulate.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class FailedDeliveries {

	private static final int MAX_ENTRIES = 1024;

	private static final ThreadLocal<Map<Coordinates, Failure>> failures = ThreadLocal
		.withInitial(() -> new LinkedHashMap<>(16, 0.75f, false) {
			@Override
			protected boolean removeEldestEntry(Map.Entry<Coordinates, Failure> eldest) {
				return size() > MAX_ENTRIES;
			}
		});

	private FailedDeliveries() {
	}

	/**
	 * Remember that attempts of a record's work failed on this thread, adding them to those remembered before.
	 * @param record the record, never {@code null}
	 * @param request its claim, never {@code null}
	 * @param attempts how many attempts failed, 0 or more (a released lease counted its own in the row)
	 */
	public static void failed(ConsumerRecord<?, ?> record, ClaimRequest request, int attempts) {
		failures.get().merge(Coordinates.of(record), new Failure(request, attempts),
				(previous, next) -> new Failure(request, previous.attempts() + attempts));
	}

	/**
	 * Forget a record's failures on this thread: it was processed, or was a hit.
	 * @param record the record, never {@code null}
	 */
	public static void succeeded(ConsumerRecord<?, ?> record) {
		Map<Coordinates, Failure> map = failures.get();
		if (!map.isEmpty()) {
			map.remove(Coordinates.of(record));
		}
	}

	/**
	 * Read a record's failures on this thread, keeping them.
	 * @param record the record, never {@code null}
	 * @return its failures, empty if none are remembered
	 */
	public static Optional<Failure> peek(ConsumerRecord<?, ?> record) {
		return Optional.ofNullable(failures.get().get(Coordinates.of(record)));
	}

	/**
	 * Read and forget a record's failures on this thread: the recoverer disposed of the record.
	 * @param record the record, never {@code null}
	 * @return its failures, empty if none are remembered
	 */
	public static Optional<Failure> take(ConsumerRecord<?, ?> record) {
		return Optional.ofNullable(failures.get().remove(Coordinates.of(record)));
	}

	/**
	 * A failed delivery.
	 *
	 * @param request what was claimed
	 * @param attempts how many attempts failed so far
	 */
	public record Failure(ClaimRequest request, int attempts) {
	}

	private record Coordinates(TopicPartition partition, long offset) {

		static Coordinates of(ConsumerRecord<?, ?> record) {
			return new Coordinates(new TopicPartition(record.topic(), record.partition()), record.offset());
		}

	}

}
