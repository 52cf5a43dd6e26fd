package dev.idempotent.kafka.reply;

import dev.idempotent.capture.Capture;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.kafka.listener.DeliveryOutputs;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * The reply of one delivery of a {@code @SendTo} record listener whose replies are stored with its claims: recorded
 * from what the method returned (in the claim's transaction) or found with a hit's outputs, then handed to
 * spring-kafka to send. For a listener that does not reply, or whose outputs are not captured, it does nothing.
 * <p>Used by the consumer thread. Not thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class StoredReply {

	private final @Nullable ListenerReply reply;

	private final DeliveryOutputs outputs;

	private final ClaimRequest claim;

	private final ConsumerRecord<?, ?> record;

	private @Nullable StoredOutput stored;

	/**
	 * Create the reply of one delivery.
	 * @param reply the listener's reply, or {@code null} when it does not reply or its replies are not stored
	 * @param outputs the delivery's outputs, whose capture records the reply
	 * @param claim the record's claim
	 * @param record the request being delivered
	 */
	public StoredReply(@Nullable ListenerReply reply, DeliveryOutputs outputs, ClaimRequest claim,
			ConsumerRecord<?, ?> record) {
		this.reply = reply;
		this.outputs = outputs;
		this.claim = claim;
		this.record = record;
	}

	/** Whether the listener's replies are stored with its claims. */
	public boolean replies() {
		return this.reply != null && this.outputs.captures();
	}

	/**
	 * Record what an attempt of the method returned as the claim's reply, inside the claim's transaction (a later
	 * attempt's replaces it).
	 * @return the value, unchanged
	 */
	public @Nullable Object record(@Nullable Object value) {
		this.stored = null;
		Capture capture = this.outputs.capture();
		if (value != null && replies() && capture != null) {
			this.stored = this.reply.record(capture, this.claim, this.record, value);
		}
		return value;
	}

	/** Take the reply a hit's claim stored, or {@code null} if it has none. */
	public void found(@Nullable StoredOutput reply) {
		this.stored = reply;
	}

	/**
	 * What the advice returns to spring-kafka, after the claim committed or was a hit.
	 * @param value what the method returned, {@code null} for a hit
	 * @return the value; for a hit with a stored reply a placeholder that spring-kafka sends as the stored reply
	 */
	public @Nullable Object returned(@Nullable Object value) {
		if (this.stored == null || this.reply == null) {
			return value;
		}
		return this.reply.expect(this.claim, this.record, this.stored, value);
	}

}
