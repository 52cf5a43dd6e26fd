package dev.idempotent.kafka.reply;

import java.lang.reflect.Array;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;

import dev.idempotent.capture.Capture;
import dev.idempotent.capture.PendingReply;
import dev.idempotent.capture.Replies;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.kafka.IdempotentListener;
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

	private final Destination destination;

	private final Class<?> returnType;

	ListenerReply(Replies replies, KafkaTemplate<?, ?> template, Destination destination, Class<?> returnType) {
		this.replies = replies;
		this.template = template;
		this.destination = destination;
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
	 * The topic spring-kafka sends the reply to, if it is known: the {@code @SendTo} topic fixed at startup
	 * (spring-kafka uses it whatever the request says), or the request's reply topic header for an empty
	 * {@code @SendTo} (which reads it); {@code null} for an expression evaluated per reply ({@code !{...}}, which may
	 * ignore the header): the next send on the thread is then the reply.
	 */
	private @Nullable String knownTopic(ConsumerRecord<?, ?> request) {
		if (this.destination.topic() != null) {
			return this.destination.topic();
		}
		if (!this.destination.requestHeader()) {
			return null;
		}
		Header header = request.headers().lastHeader(KafkaHeaders.REPLY_TOPIC);
		return (header != null && header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	/**
	 * Where spring-kafka sends a listener's replies.
	 * @param topic the topic fixed at startup (a literal {@code @SendTo}, with its placeholders and {@code #{...}}
	 * resolved), or {@code null}
	 * @param requestHeader whether the request's reply topic header names it (an empty {@code @SendTo})
	 */
	record Destination(@Nullable String topic, boolean requestHeader) {

		/** The request's reply topic header: an empty {@code @SendTo}. */
		static final Destination REQUEST_HEADER = new Destination(null, true);

		/** An expression spring-kafka evaluates for each reply ({@code !{...}}). */
		static final Destination EXPRESSION = new Destination(null, false);

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
