package dev.idempotent.capture;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.HeldOffsets;
import dev.idempotent.fastpath.DatabaseOnlyKeys;
import dev.idempotent.output.OutputDeliveryException;
import dev.idempotent.output.OutputHeader;
import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * The outputs of one claim while its work runs: every record sent through a captured producer on this thread
 * between {@link ClaimOutputs#begin} and {@link #store()} is recorded (topic, partition if chosen, serialized key and
 * value, headers) together with the future of its acknowledgment. The steps, for whatever runs a claim:
 * <ol>
 * <li>{@link ClaimOutputs#begin} before the work, on the thread that runs it;</li>
 * <li>{@link #store()} after the work, inside the claim's transaction (it also ends the recording);</li>
 * <li>{@link #awaitSent()} after the transaction committed, before the offset is committed;</li>
 * <li>{@link #close()} in a {@code finally}.</li>
 * </ol>
 * A record sent without the idempotency key header gets one before it is sent, derived from the claim and the
 * output's position (for a batch listener: from the output's content, {@link BatchOutputKeys}), so that a re-send on
 * a hit carries the same key as the first send.
 * <p>Used by one thread. Not thread-safe.
 *
 * @since 0.1.0
 */
public final class Capture implements AutoCloseable {

	private static final ThreadLocal<Capture> current = new ThreadLocal<>();

	private final ClaimRequest claim;

	private final ClaimOutputs owner;

	private final boolean recording;

	private final String listener;

	/** The keys of a batch listener's outputs, taken from their content; {@code null}: from the claim. */
	private final @Nullable BatchOutputKeys batchKeys;

	/** The most outputs this capture may record. */
	private final int maxCount;

	private final List<StoredOutput> outputs = new ArrayList<>();

	private final List<Future<RecordMetadata>> acks = new ArrayList<>();

	/** The producers the outputs went through, told to flush before their acknowledgments are awaited. */
	private final Set<Producer<?, ?>> producers = Collections.newSetFromMap(new IdentityHashMap<>());

	private int stored;

	/** Why the claim must not commit, caught by the work or not: an output rejected, or not sent for a passing cause. */
	private @Nullable RuntimeException rejected;

	Capture(ClaimRequest claim, ClaimOutputs owner, boolean recording, String listener,
			@Nullable BatchOutputKeys batchKeys, int records) {
		this.claim = claim;
		this.owner = owner;
		this.recording = recording;
		this.listener = listener;
		this.batchKeys = batchKeys;
		this.maxCount = (int) Math.min(Integer.MAX_VALUE, (long) owner.settings().maxCount() * Math.max(1, records));
	}

	/** The capture open on this thread, or {@code null}. */
	static @Nullable Capture current() {
		return current.get();
	}

	Capture bind() {
		current.set(this);
		return this;
	}

	private void unbind() {
		if (current.get() == this) {
			current.remove();
		}
	}

	/**
	 * Return the claim whose outputs these are.
	 * @return the claim, never {@code null}
	 */
	public ClaimRequest claim() {
		return this.claim;
	}

	/**
	 * Tell whether this capture records (the listener did not opt out and outputs are on).
	 * @return whether sends are recorded
	 */
	public boolean recording() {
		return this.recording;
	}

	/**
	 * Return the outputs recorded so far, in the order they were sent.
	 * @return the outputs, empty when recording is off
	 */
	public List<StoredOutput> outputs() {
		return List.copyOf(this.outputs);
	}

	/**
	 * Start (again) recording on this thread, forgetting what an earlier attempt of the claim's transaction recorded
	 * (it rolled back): call at the start of each attempt of the work when the transaction may be retried.
	 */
	public void attempt() {
		this.outputs.clear();
		this.acks.clear();
		this.producers.clear();
		this.stored = 0;
		this.rejected = null;
		bind();
	}

	/**
	 * Called by the producer before a record is sent under this capture, before the producer's interceptors see it. A
	 * record without an idempotency key gets its key here, from the claim and the output's position; a batch
	 * listener's record, whose key comes from its content once it is serialized, gets a placeholder that
	 * {@link #serialized} replaces (so that an interceptor adding keys to records without one, such as
	 * {@code idempotent.producer.add-key-header}'s, leaves it alone).
	 */
	void beforeSend(ProducerRecord<?, ?> record, SerializedSlot slot) {
		if (!this.recording) {
			this.owner.warnUncaptured(this.listener, record.topic());
			return;
		}
		if (this.outputs.size() >= this.maxCount) {
			throw rejected(new OutputRejectedException("@IdempotentListener method " + this.listener + " sent more than"
					+ " idempotent.outputs.max-count=" + this.owner.settings().maxCount() + " records per claim ("
					+ this.maxCount + " in this call); they cannot all be stored to be re-sent on a hit. The record to "
					+ record.topic() + " was not sent and the claim rolls back. Raise the limit or turn outputs off"
					+ " for this listener."));
		}
		if (this.batchKeys == null) {
			addKey(record.headers(), outputKey(this.claim, this.outputs.size()));
		}
		else if (record.headers().lastHeader(this.owner.settings().keyHeader()) == null) {
			// random, so that a record sent past the starter's serializers still carries a key no other output has
			byte[] placeholder = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
			if (addKey(record.headers(), placeholder)) {
				slot.placeholder(placeholder);
			}
		}
	}

	/**
	 * Called by the value serializer of a record sent under this capture, after the key and the value were serialized
	 * and before the producer makes the headers read-only: a batch listener's output without a key gets the one its
	 * content gives ({@link BatchOutputKeys}).
	 */
	void serialized(SerializedSlot slot, String topic, Headers headers, byte @Nullable [] key,
			byte @Nullable [] value) {
		if (!this.recording || this.batchKeys == null) {
			return;
		}
		String keyHeader = this.owner.settings().keyHeader();
		if (headers.lastHeader(keyHeader) != null && !holdsPlaceholder(headers, slot)) {
			return; // the record's own key
		}
		try {
			headers.remove(keyHeader);
		}
		catch (IllegalStateException readOnly) {
			return; // a record object sent before keeps the headers it was sent with
		}
		byte[] batchKey = this.batchKeys.next(topic, key, value);
		slot.batchKey(batchKey);
		addKey(headers, batchKey);
	}

	/** Whether the key header of a record is the placeholder its send got in {@link #beforeSend}. */
	private boolean holdsPlaceholder(Headers headers, SerializedSlot slot) {
		Header present = headers.lastHeader(this.owner.settings().keyHeader());
		return present != null && slot.placeholder() != null && Arrays.equals(present.value(), slot.placeholder());
	}

	/** Add the key header to a record that has none; {@code false} if it has one or its headers are read-only. */
	private boolean addKey(Headers headers, byte[] key) {
		String header = this.owner.settings().keyHeader();
		if (headers.lastHeader(header) != null) {
			return false;
		}
		try {
			headers.add(header, key);
			return true;
		}
		catch (IllegalStateException readOnly) {
			// a record object sent before keeps the headers it was sent with
			return false;
		}
	}

	/**
	 * Remember that an output was rejected while the work ran: even if the work catches the exception, the claim must
	 * not commit without it.
	 * @param rejection why the output was rejected
	 * @return {@code rejection}, to throw
	 */
	<E extends RuntimeException> E rejected(E rejection) {
		if (this.recording && this.rejected == null) {
			this.rejected = rejection;
		}
		return rejection;
	}

	/**
	 * Called by the producer after the wrapped producer returned from sending a record under this capture. A send the
	 * producer refused at once sent nothing and is not recorded; its sender sees the failure (spring-kafka's
	 * {@code KafkaTemplate} throws a {@code KafkaException}). Refused for good (too large for {@code max.request.size},
	 * an invalid topic, not authorized), a hit must not send it again and the claim may commit: the work decides. Refused
	 * for a cause that may pass (a full buffer, metadata not received within {@code max.block.ms}), the claim rolls back
	 * even when the work catches the exception, and the record is retried: it must not commit without the output.
	 */
	void sent(ProducerRecord<?, ?> record, SerializedSlot slot, Future<RecordMetadata> ack, Producer<?, ?> producer,
			String factory) {
		if (!this.recording) {
			return;
		}
		Throwable refusal = refusal(ack);
		if (refusal != null) {
			if (this.batchKeys != null && slot.batchKey() != null) {
				this.batchKeys.refused(); // not sent: the next output with its content takes its key
			}
			if (!Acknowledgments.isPermanent(refusal)) {
				rejected(new OutputDeliveryException("@IdempotentListener method " + this.listener + " could not send a"
						+ " record to " + record.topic() + " (" + refusal + "); the claim rolls back, even if the method"
						+ " caught the failure, and the record is retried", refusal));
			}
			return;
		}
		if (!slot.complete()) {
			throw new IllegalStateException("A record to " + record.topic() + " was sent under a claim by a producer"
					+ " whose serializers are not the starter's; its bytes cannot be stored");
		}
		List<OutputHeader> headers = headers(record);
		byte[] batchKey = slot.batchKey();
		if (batchKey != null) {
			// the key the record was sent with, also when a producer interceptor sent a copy of it, which got the key
			// in place of the placeholder the record still holds
			String keyHeader = this.owner.settings().keyHeader();
			headers.removeIf((header) -> header.name().equals(keyHeader));
			headers.add(new OutputHeader(keyHeader, batchKey));
		}
		headers.add(SendingFactory.header(factory));
		this.outputs.add(new StoredOutput(record.topic(), record.partition(), slot.bytes(true), slot.bytes(false),
				headers));
		this.acks.add(ack);
		this.producers.add(producer);
	}

	/**
	 * Called by the producer once a send under this capture returned or threw: the record object the method sent no
	 * longer holds the placeholder key. It gets the key the record was sent with (a producer interceptor sent a copy of
	 * it, whose headers got the key), or none if it was not serialized (the producer refused it first), so that sending
	 * the same object again keys it anew.
	 */
	void afterSend(ProducerRecord<?, ?> record, SerializedSlot slot) {
		if (!holdsPlaceholder(record.headers(), slot)) {
			return;
		}
		String keyHeader = this.owner.settings().keyHeader();
		try {
			record.headers().remove(keyHeader);
			if (slot.batchKey() != null) {
				record.headers().add(keyHeader, slot.batchKey());
			}
		}
		catch (IllegalStateException readOnly) {
			// sent with the placeholder by a producer whose serializers are not the starter's
		}
	}

	/**
	 * Record the reply of a {@code @SendTo} method (made by {@link Replies#serialize}) after the outputs it sent, to be
	 * stored with them; spring-kafka sends it after the claim committed ({@link PendingReply}). Nothing is recorded
	 * when this capture does not record.
	 * @param reply the stored reply
	 */
	public void reply(StoredOutput reply) {
		if (this.recording) {
			this.outputs.add(reply);
		}
	}

	/**
	 * Return the position the next output of the claim takes.
	 * @return how many outputs were recorded, 0 or more
	 */
	public int position() {
		return this.outputs.size();
	}

	/**
	 * Store the outputs recorded since the last call, in the transaction active on the business database, and stop
	 * recording on this thread. Call after the work, before the claim's transaction commits.
	 * @throws OutputRejectedException if an output was rejected while the work ran (and the work caught it): the claim
	 * must roll back, and the record goes to the dead-letter topic
	 * @throws OutputDeliveryException if an output could not be sent for a cause that may pass (and the work caught
	 * it): the claim must roll back, and the record is retried
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 */
	public void store() {
		unbind();
		if (this.rejected != null) {
			throw this.rejected;
		}
		if (!this.recording || this.stored == this.outputs.size()) {
			return;
		}
		this.owner.store().store(this.claim, this.stored, this.outputs.subList(this.stored, this.outputs.size()));
		this.stored = this.outputs.size();
		// a hit on this claim must read its outputs back: the fast path must not answer it; and a crash before they
		// are acknowledged must redeliver it, whatever offset its transaction stores
		DatabaseOnlyKeys.exclude(this.claim);
		HeldOffsets.hold();
	}

	/**
	 * Wait until the broker acknowledged every recorded output. Call after the claim's transaction committed and
	 * before the offset is committed.
	 * @throws OutputDeliveryException if an output was not acknowledged in time or failed with an error that may pass
	 * @throws OutputRejectedException if an output failed for good (e.g. too large for the broker)
	 */
	public void awaitSent() {
		if (this.stored > 0) {
			this.owner.meters().stored(this.claim.scope(), this.stored);
		}
		if (this.acks.isEmpty()) {
			return;
		}
		this.producers.forEach(ProducerFlush::start);
		Acknowledgments.await(this.acks, this.owner.settings().ackTimeout(), this.claim);
	}

	@Override
	public void close() {
		unbind();
	}

	/** Why the producer refused a send at once (its future is already complete with a failure), or {@code null}. */
	private static @Nullable Throwable refusal(Future<RecordMetadata> ack) {
		if (!ack.isDone()) {
			return null;
		}
		try {
			ack.get();
			return null;
		}
		catch (ExecutionException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
		catch (CancellationException ex) {
			return ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	/** The idempotency key given to the output at a position of a claim that has none: the same on every re-send. */
	static byte[] outputKey(ClaimRequest claim, int sequence) {
		String name = claim.scope() + '\u0000' + claim.key() + '\u0000' + sequence;
		return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8))
			.toString()
			.getBytes(StandardCharsets.UTF_8);
	}

	private static List<OutputHeader> headers(ProducerRecord<?, ?> record) {
		List<OutputHeader> headers = new ArrayList<>();
		for (Header header : record.headers()) {
			headers.add(new OutputHeader(header.key(), header.value()));
		}
		return headers;
	}

}
