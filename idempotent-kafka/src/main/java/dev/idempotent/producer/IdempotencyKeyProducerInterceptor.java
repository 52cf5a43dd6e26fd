package dev.idempotent.producer;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;

import dev.idempotent.kafka.IdempotencyHeaders;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * A Kafka {@link ProducerInterceptor} that gives every record without an idempotency-key header one: a random UUID
 * (UTF-8 text). A record that already has the header keeps it, whatever its value; a record dead-lettered because
 * its key was rejected (it carries {@value IdempotencyHeaders#REJECTION_REASON}) gets none, so that the dead-letter
 * topic keeps the evidence of the missing key. Register it in the producer's
 * {@code interceptor.classes} (the starter does so with {@code idempotent.producer.add-key-header=true}); the
 * header name is the producer config {@value #KEY_HEADER_CONFIG}, {@value IdempotencyHeaders#KEY} by default.
 * <p>The key is drawn once per {@code send()}, before the producer's own retries, so every redelivery of that record
 * to a consumer (after a crash, a rebalance, a lost offset commit) carries the same key and is an idempotent hit. An
 * application that sends the same business event twice gets two keys: where that can happen, set the header to a
 * business identity yourself, or use a key expression on the consumer.
 * <p>Kafka creates one instance per producer; it is thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotencyKeyProducerInterceptor implements ProducerInterceptor<Object, Object> {

	/** The producer config that names the header; {@value IdempotencyHeaders#KEY} when absent. */
	public static final String KEY_HEADER_CONFIG = "idempotent.key-header";

	private volatile String header = IdempotencyHeaders.KEY;

	@Override
	public void configure(Map<String, ?> configs) {
		Object configured = configs.get(KEY_HEADER_CONFIG);
		if (configured != null && !configured.toString().isBlank()) {
			this.header = configured.toString();
		}
	}

	/**
	 * Add the header when the record has none and was not dead-lettered for a rejected key.
	 * @param record the record being sent, never {@code null}
	 * @return the same record
	 */
	@Override
	public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
		if (record.headers().lastHeader(this.header) == null
				&& record.headers().lastHeader(IdempotencyHeaders.REJECTION_REASON) == null) {
			record.headers().add(this.header, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
		}
		return record;
	}

	@Override
	public void onAcknowledgement(@Nullable RecordMetadata metadata, @Nullable Exception exception) {
	}

	@Override
	public void close() {
	}

	/**
	 * Return the name of the header this interceptor writes.
	 * @return the header name
	 */
	public String getHeader() {
		return this.header;
	}

}
