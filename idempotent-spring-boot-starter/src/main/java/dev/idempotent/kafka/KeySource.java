package dev.idempotent.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * Where one listener method takes its idempotency key from: a header, or a SpEL expression.
 */
sealed interface KeySource permits HeaderKeySource, ExpressionKeySource {

	/**
	 * Produce the raw key for a delivery.
	 * @param record the record being delivered
	 * @param arguments the listener method's resolved arguments
	 * @return the raw key, may be {@code null}
	 * @throws dev.idempotent.key.InvalidIdempotencyKeyException if the key cannot be produced
	 */
	@Nullable Object rawKey(ConsumerRecord<?, ?> record, @Nullable Object[] arguments);

	/**
	 * Describe the source for error messages.
	 * @return e.g. {@code "header 'idempotency-key'"}
	 */
	String description();

}
