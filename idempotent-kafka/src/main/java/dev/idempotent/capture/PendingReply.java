package dev.idempotent.capture;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputDeliveryException;
import dev.idempotent.output.OutputHeader;
import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * The stored reply that spring-kafka is about to send for the record on this consumer thread. A {@code @SendTo}
 * method returns its value to spring-kafka, which addresses the reply (the reply topic, the requester's correlation id
 * and reply partition) and sends it through the container's reply template after the listener advice returned. The
 * advice {@link #expect expects} the reply it stored with the claim; the next record a captured producer sends on this
 * thread is that reply, and it is sent with the stored key and value bytes (and the stored headers it lacks) instead of
 * what its serializers would produce. So the first reply and every reply sent for a hit on the claim carry the same
 * bytes, addressed to the request at hand (a {@code ReplyingKafkaTemplate} retry is a new request with a correlation id
 * of its own).
 * <p>Thread-confined: one per consumer thread.
 *
 * @since 0.1.0
 */
public final class PendingReply {

	private static final ThreadLocal<PendingReply> current = new ThreadLocal<>();

	private static final ThreadLocal<RuntimeException> failure = new ThreadLocal<>();

	private final ClaimRequest claim;

	private final StoredOutput reply;

	private final @Nullable String topic;

	private final @Nullable Duration await;

	private PendingReply(ClaimRequest claim, StoredOutput reply, @Nullable String topic, @Nullable Duration await) {
		this.claim = claim;
		this.reply = reply;
		this.topic = topic;
		this.await = await;
	}

	/**
	 * Expect spring-kafka to send a claim's stored reply on this thread, next.
	 * @param claim the claim the reply was stored with
	 * @param reply the stored reply ({@link Replies#isReply})
	 * @param topic the topic the reply goes to when it is known (a literal {@code @SendTo}, the request's reply topic
	 * header), else {@code null} (a send to another topic is then not taken for the reply)
	 * @param await how long the send waits for the broker's acknowledgment before spring-kafka's container goes on to
	 * commit the offset; {@code null} to not wait (the container's Kafka transaction commits the reply with the offset)
	 */
	public static void expect(ClaimRequest claim, StoredOutput reply, @Nullable String topic,
			@Nullable Duration await) {
		current.set(new PendingReply(claim, reply, topic, await));
	}

	/**
	 * Forget a reply spring-kafka did not send (it resolved no reply topic): call before and after each record so that
	 * it never replaces another record's send.
	 */
	public static void clear() {
		current.remove();
		failure.remove();
	}

	/**
	 * Take the failure of the reply sent on this thread since the last {@link #clear}: spring-kafka does not pass it
	 * on, so whatever wraps its listener call throws it to fail the record (its retry is a hit that sends the stored
	 * reply again).
	 * @return the failure, or {@code null} if no reply failed
	 */
	public static @Nullable RuntimeException takeFailure() {
		RuntimeException failed = failure.get();
		failure.remove();
		return failed;
	}

	/** Remember that the reply's send failed. */
	static void failed(RuntimeException ex) {
		failure.set(ex);
	}

	/**
	 * Take the reply expected on this thread if a record about to be sent is it (the first send after the advice
	 * returned, to the reply's topic when that is known).
	 * @return the reply, or {@code null} if none is expected or the record is not it
	 */
	static @Nullable PendingReply take(ProducerRecord<?, ?> record) {
		PendingReply pending = current.get();
		if (pending == null || (pending.topic != null && !pending.topic.equals(record.topic()))) {
			return null;
		}
		current.remove();
		return pending;
	}

	StoredOutput reply() {
		return this.reply;
	}

	/**
	 * Give the record spring-kafka built the stored headers, in place of those of the same names (what a converter or
	 * serializer derived from the placeholder is replaced by what it derived from the value).
	 */
	void addStoredHeaders(ProducerRecord<?, ?> record) {
		try {
			for (OutputHeader header : this.reply.headers()) {
				record.headers().remove(header.name());
			}
			for (OutputHeader header : this.reply.headers()) {
				record.headers().add(header.name(), header.value());
			}
		}
		catch (IllegalStateException readOnly) {
			// a record object sent before keeps the headers it was sent with
		}
	}

	/** Whether the reply's send waits for its acknowledgment. */
	boolean awaits() {
		return this.await != null;
	}

	/**
	 * Wait for the reply's acknowledgment, if this reply waits: inside spring-kafka's listener call, so the offset is
	 * committed after the reply was acknowledged.
	 * @throws OutputDeliveryException if it was not acknowledged in time or failed with an error that may pass
	 * @throws OutputRejectedException if it failed for good
	 */
	void awaitSent(Future<RecordMetadata> ack) {
		if (this.await != null) {
			Acknowledgments.await(List.of(ack), this.await, this.claim);
		}
	}

}
