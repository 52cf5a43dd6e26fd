package dev.idempotent.kafka;

import java.lang.reflect.Array;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;

import dev.idempotent.capture.Capture;
import dev.idempotent.capture.PendingReply;
import dev.idempotent.capture.Replies;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.objenesis.Objenesis;
import org.springframework.objenesis.ObjenesisStd;

/**
 * How one {@code @SendTo} record listener's reply is kept with its claim: inside the claim's transaction the returned
 * value is serialized and stored ({@link #record}); once the claim committed, or for a hit, spring-kafka is expected
 * to send the stored reply ({@link #expect}), addressed to the request at hand. For a hit the method is not called,
 * so the advice returns a placeholder of the method's return type, which spring-kafka hands to the reply template and
 * whose own bytes are never sent (the stored ones are).
 * <p>Thread-safe.
 */
final class ListenerReply {

	private static final Objenesis objenesis = new ObjenesisStd(true);

	private final Replies replies;

	private final KafkaTemplate<?, ?> template;

	private final @Nullable String topic;

	private final Class<?> returnType;

	/**
	 * @param topic the {@code @SendTo} topic when it is a literal, else {@code null} (an expression, or the request's
	 * reply topic header)
	 */
	ListenerReply(Replies replies, KafkaTemplate<?, ?> template, @Nullable String topic, Class<?> returnType) {
		this.replies = replies;
		this.template = template;
		this.topic = topic;
		this.returnType = returnType;
	}

	/**
	 * Serialize what the method returned and record it as the claim's reply, in the claim's transaction.
	 * @return the stored reply
	 */
	StoredOutput record(Capture capture, ClaimRequest claim, ConsumerRecord<?, ?> request, Object value) {
		if (value instanceof Message<?> || value instanceof Iterable<?>) {
			// spring-kafka decides from the value: a Message keeps its own headers, an Iterable may be split in several
			throw new IllegalStateException("@IdempotentListener method returned a " + value.getClass().getName()
					+ " to reply with: its reply cannot be stored with its claim (a Message's headers are not stored,"
					+ " an Iterable may be sent as several replies); return the payload");
		}
		StoredOutput reply = this.replies.serialize(this.template, claim, capture.position(), request, topic(request),
				value);
		capture.reply(reply);
		return reply;
	}

	/**
	 * Expect spring-kafka to send a stored reply for this record, next, on this thread.
	 * @param value what the method returned, or {@code null} for a hit (then a placeholder is returned)
	 * @return what the advice returns to spring-kafka, not {@code null}
	 */
	Object expect(ClaimRequest claim, ConsumerRecord<?, ?> request, StoredOutput reply, @Nullable Object value) {
		PendingReply.expect(claim, reply, knownTopic(request), this.replies.ackWait(this.template));
		return (value != null) ? value : placeholder(this.returnType);
	}

	/** The topic the serializers are told: the reply's topic if it is known, else the request's topic. */
	private String topic(ConsumerRecord<?, ?> request) {
		String known = knownTopic(request);
		return (known != null) ? known : request.topic();
	}

	/**
	 * The topic spring-kafka sends the reply to, if it is known: a literal {@code @SendTo} topic (spring-kafka uses it
	 * whatever the request says), else the request's reply topic header (which an empty {@code @SendTo} reads), else
	 * {@code null} (an expression).
	 */
	private @Nullable String knownTopic(ConsumerRecord<?, ?> request) {
		if (this.topic != null) {
			return this.topic;
		}
		Header header = request.headers().lastHeader(KafkaHeaders.REPLY_TOPIC);
		return (header != null && header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	/**
	 * Tell why a placeholder of a return type cannot be made, or {@code null} if it can.
	 * @param type a method's return type
	 */
	static @Nullable String placeholderProblem(Class<?> type) {
		if (type.isPrimitive() || type.isArray() || type.isAssignableFrom(String.class)) {
			return null;
		}
		if (type.isInterface() || Modifier.isAbstract(type.getModifiers())) {
			return "its return type " + type.getName() + " is an interface or abstract class";
		}
		return null;
	}

	/** An instance of the return type whose content does not matter: its bytes are replaced by the stored ones. */
	static Object placeholder(Class<?> type) {
		if (type.isPrimitive()) {
			return Array.get(Array.newInstance(type, 1), 0);
		}
		if (type.isArray()) {
			return Array.newInstance(type.getComponentType(), 0);
		}
		if (type.isAssignableFrom(String.class)) {
			return "";
		}
		return objenesis.newInstance(type);
	}

}
