package dev.idempotent.kafka;

import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;

import dev.idempotent.key.InvalidIdempotencyKeyException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Headers for a dead-lettered record whose key was rejected: {@value IdempotencyHeaders#REJECTION_REASON} and
 * {@value IdempotencyHeaders#REJECTION_MESSAGE}. For other failures it adds nothing. Use it as the headers
 * function of a {@code DeadLetterPublishingRecoverer}. Thread-safe.
 *
 * @since 0.1.0
 */
public final class KeyRejectionHeaders implements BiFunction<ConsumerRecord<?, ?>, Exception, @Nullable Headers> {

	@Override
	public @Nullable Headers apply(ConsumerRecord<?, ?> record, Exception exception) {
		InvalidIdempotencyKeyException rejection = find(exception);
		if (rejection == null) {
			return null;
		}
		RecordHeaders headers = new RecordHeaders();
		headers.add(IdempotencyHeaders.REJECTION_REASON, rejection.getReason().name().getBytes(StandardCharsets.UTF_8));
		String message = (rejection.getMessage() != null) ? rejection.getMessage() : rejection.getReason().name();
		headers.add(IdempotencyHeaders.REJECTION_MESSAGE, message.getBytes(StandardCharsets.UTF_8));
		return headers;
	}

	private static @Nullable InvalidIdempotencyKeyException find(Throwable exception) {
		for (Throwable t = exception; t != null; t = t.getCause()) {
			if (t instanceof InvalidIdempotencyKeyException rejection) {
				return rejection;
			}
		}
		return null;
	}

}
