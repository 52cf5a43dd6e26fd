package dev.idempotent.kafka.method;

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
	 * The arguments to produce the key of another record of the poll with, from those of the record being delivered
	 * (for {@code PollPrefetch}: the result only selects keys to ask the fast path about, so a wrong key costs a
	 * lookup, never a wrong answer).
	 * @param polled the other record
	 * @param delivered the method's arguments for the record being delivered
	 * @return the arguments, or {@code null} when the key of {@code polled} cannot be produced without converting it
	 */
	@Nullable Object @Nullable [] argumentsOf(ConsumerRecord<?, ?> polled, @Nullable Object[] delivered);

	/**
	 * Describe the source for error messages.
	 * @return e.g. {@code "header 'idempotency-key'"}
	 */
	String description();

}
