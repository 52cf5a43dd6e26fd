package dev.idempotent.kafka.error;

import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.NullPayloadException;
import dev.idempotent.kafka.support.FailedDeliveries;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.retention.LateRecordException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Headers the library adds to a dead-lettered record, next to spring-kafka's exception headers: for a rejected
 * key, {@value IdempotencyHeaders#REJECTION_REASON} and {@value IdempotencyHeaders#REJECTION_MESSAGE}; for a
 * record older than the retention period, the same with the reason {@value IdempotencyHeaders#LATE_RECORD}; for a
 * {@code null} payload in a batch, the reason {@value IdempotencyHeaders#NULL_PAYLOAD}; for failed
 * work, {@value IdempotencyHeaders#DEAD_LETTER_SCOPE} and {@value IdempotencyHeaders#DEAD_LETTER_KEY}. Use it as
 * the headers function of a {@code DeadLetterPublishingRecoverer}; it must run on the consumer thread.
 *
 * @since 0.1.0
 */
public final class DeadLetterHeaders implements BiFunction<ConsumerRecord<?, ?>, Exception, @Nullable Headers> {

	@Override
	public @Nullable Headers apply(ConsumerRecord<?, ?> record, Exception exception) {
		InvalidIdempotencyKeyException rejection = find(exception, InvalidIdempotencyKeyException.class);
		RecordHeaders headers = new RecordHeaders();
		LateRecordException late = find(exception, LateRecordException.class);
		if (late != null) {
			add(headers, IdempotencyHeaders.REJECTION_REASON, IdempotencyHeaders.LATE_RECORD);
			add(headers, IdempotencyHeaders.REJECTION_MESSAGE, String.valueOf(late.getMessage()));
			return headers;
		}
		NullPayloadException nullPayload = find(exception, NullPayloadException.class);
		if (nullPayload != null) {
			add(headers, IdempotencyHeaders.REJECTION_REASON, IdempotencyHeaders.NULL_PAYLOAD);
			add(headers, IdempotencyHeaders.REJECTION_MESSAGE, String.valueOf(nullPayload.getMessage()));
			return headers;
		}
		if (rejection != null) {
			add(headers, IdempotencyHeaders.REJECTION_REASON, rejection.getReason().name());
			add(headers, IdempotencyHeaders.REJECTION_MESSAGE,
					(rejection.getMessage() != null) ? rejection.getMessage() : rejection.getReason().name());
			return headers;
		}
		return FailedDeliveries.peek(record).map((failure) -> {
			add(headers, IdempotencyHeaders.DEAD_LETTER_SCOPE, failure.request().scope());
			add(headers, IdempotencyHeaders.DEAD_LETTER_KEY, failure.request().key());
			return (Headers) headers;
		}).orElse(null);
	}

	private static void add(RecordHeaders headers, String name, String value) {
		headers.add(name, value.getBytes(StandardCharsets.UTF_8));
	}

	private static <T extends Throwable> @Nullable T find(Throwable exception, Class<T> type) {
		for (Throwable t = exception; t != null; t = t.getCause()) {
			if (type.isInstance(t)) {
				return type.cast(t);
			}
		}
		return null;
	}

}
