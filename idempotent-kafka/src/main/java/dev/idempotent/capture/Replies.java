package dev.idempotent.capture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputHeader;
import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serializer;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Turns what a {@code @SendTo} method returned into the reply stored with its claim, inside the claim's transaction:
 * the value is converted by the reply template's message converter and serialized by its producer factory's
 * serializers, as spring-kafka does when it sends a payload reply (the reply's key is the request's key), so that the
 * stored bytes are the ones the requester reads. A stored reply is an output of the claim with the topic
 * {@value #TOPIC}, which no Kafka topic can have (a topic name holds only ASCII letters, digits, '.', '_' and '-'):
 * it is never sent to that topic, spring-kafka addresses it to the request at hand ({@link PendingReply}).
 * <p>Headers that spring-kafka sets per request ({@code kafka_*}: the correlation id, the reply partition) are not
 * stored; the headers the converter and serializers add (type headers of a JSON serializer, say) are, and so is the
 * idempotency key header, derived from the claim, so that every reply to a request of the key carries the same key.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public final class Replies {

	/** The topic a stored reply has in the output table. */
	public static final String TOPIC = "@reply";

	private final Supplier<ProducerCaptureInstaller> installer;

	private final String keyHeader;

	private final Duration ackTimeout;

	private final Map<ProducerFactory<?, ?>, Serializers> serializers = new ConcurrentHashMap<>();

	/**
	 * Create the replies.
	 * @param installer tells which producer factories capture (only their serializers can be used)
	 * @param keyHeader the idempotency key header given to replies
	 * @param ackTimeout how long a reply's send waits for the broker's acknowledgment outside a Kafka transaction
	 */
	public Replies(Supplier<ProducerCaptureInstaller> installer, String keyHeader, Duration ackTimeout) {
		this.installer = installer;
		this.keyHeader = keyHeader;
		this.ackTimeout = ackTimeout;
	}

	/**
	 * Return how long a reply's send waits for the broker's acknowledgment outside a Kafka transaction
	 * ({@code idempotent.outputs.ack-timeout}).
	 * @return the timeout, positive
	 */
	public Duration ackTimeout() {
		return this.ackTimeout;
	}

	/**
	 * Return how long a reply sent through a template on this thread waits for the broker's acknowledgment.
	 * @param template the reply template
	 * @return {@link #ackTimeout()}, or {@code null} when the container's Kafka transaction is active on the template's
	 * producer factory (the transaction commits the reply with the offset)
	 */
	public @Nullable Duration ackWait(KafkaTemplate<?, ?> template) {
		return OutputReplay.inKafkaTransaction(template.getProducerFactory()) ? null : this.ackTimeout;
	}

	/**
	 * Tell whether a stored output is a claim's reply.
	 * @param output a stored output
	 * @return whether it is the reply, which only spring-kafka's reply to a request sends
	 */
	public static boolean isReply(StoredOutput output) {
		return TOPIC.equals(output.topic());
	}

	/**
	 * Tell whether a reply template can have its replies stored: its producer factory captures.
	 * @param template a reply template
	 * @return whether {@link #serialize} can serialize its replies
	 */
	public boolean supports(KafkaTemplate<?, ?> template) {
		return this.installer.get().captures(template.getProducerFactory());
	}

	/**
	 * Convert and serialize a reply, as its template would.
	 * @param template the container's reply template
	 * @param claim the claim the reply is stored with
	 * @param sequence the reply's position among the claim's outputs
	 * @param request the record replied to (its key is the reply's key)
	 * @param topic the reply topic the serializers are told (for serializers that depend on it)
	 * @param value what the method returned, not {@code null}
	 * @return the reply to store
	 * @throws OutputRejectedException if the key or value is larger than {@code idempotent.outputs.max-bytes}
	 * @throws IllegalStateException if the template's producer factory does not capture
	 * @throws RuntimeException whatever the converter or a serializer throws for the value
	 */
	public StoredOutput serialize(KafkaTemplate<?, ?> template, ClaimRequest claim, int sequence,
			ConsumerRecord<?, ?> request, String topic, Object value) {
		MessageBuilder<Object> message = MessageBuilder.withPayload(value).setHeader(KafkaHeaders.TOPIC, topic);
		if (request.key() != null) {
			message.setHeader(KafkaHeaders.KEY, request.key());
		}
		ProducerRecord<?, ?> record = template.getMessageConverter().fromMessage(message.build(), topic);
		Serializers pair = this.serializers.computeIfAbsent(template.getProducerFactory(), this::serializers);
		byte[] key;
		byte[] bytes;
		try (SerializedSlot slot = SerializedSlot.open()) {
			key = pair.key().serialize(topic, record.headers(), record.key());
			bytes = pair.value().serialize(topic, record.headers(), record.value());
		}
		return new StoredOutput(TOPIC, null, key, bytes, headers(record, claim, sequence));
	}

	private List<OutputHeader> headers(ProducerRecord<?, ?> record, ClaimRequest claim, int sequence) {
		List<OutputHeader> headers = new ArrayList<>();
		for (Header header : record.headers()) {
			if (!header.key().startsWith(KafkaHeaders.PREFIX)) {
				headers.add(new OutputHeader(header.key(), header.value()));
			}
		}
		if (record.headers().lastHeader(this.keyHeader) == null) {
			headers.add(new OutputHeader(this.keyHeader, Capture.outputKey(claim, sequence)));
		}
		return headers;
	}

	@SuppressWarnings("unchecked")
	private Serializers serializers(ProducerFactory<?, ?> factory) {
		if (!this.installer.get().captures(factory)) {
			throw new IllegalStateException("The reply template's producer factory " + factory + " is not a"
					+ " DefaultKafkaProducerFactory bean the starter captures on; a reply cannot be stored");
		}
		// configured as the factory configures its producers' serializers (its suppliers hand out unconfigured ones)
		Serializer<?> key = factory.getKeySerializer();
		Serializer<?> value = factory.getValueSerializer();
		if (key == null || value == null) {
			throw new IllegalStateException("The reply template's producer factory " + factory + " has no serializers");
		}
		return new Serializers((Serializer<Object>) key, (Serializer<Object>) value);
	}

	/** The serializers of a producer factory, made once: serializers are thread-safe, as a producer's must be. */
	private record Serializers(Serializer<Object> key, Serializer<Object> value) {
	}

}
