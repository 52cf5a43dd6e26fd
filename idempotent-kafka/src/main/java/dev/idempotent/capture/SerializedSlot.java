package dev.idempotent.capture;

import org.jspecify.annotations.Nullable;

/**
 * What passes between a {@link CapturingProducer} and its {@link CapturingSerializer}s during one {@code send} on
 * one thread: while capturing, the bytes the serializers produced; while replaying a stored output, the bytes they
 * must produce instead of serializing. Thread-confined.
 */
final class SerializedSlot implements AutoCloseable {

	private static final ThreadLocal<SerializedSlot> current = new ThreadLocal<>();

	private final boolean replay;

	private final boolean replayKey;

	private byte @Nullable [] key;

	private byte @Nullable [] value;

	private boolean keySerialized;

	private boolean valueSerialized;

	private byte @Nullable [] batchKey;

	private byte @Nullable [] placeholder;

	private SerializedSlot(boolean replay, boolean replayKey, byte @Nullable [] key, byte @Nullable [] value) {
		this.replay = replay;
		this.replayKey = replayKey;
		this.key = key;
		this.value = value;
	}

	/** Open a slot that records what the serializers produce for the send about to happen on this thread. */
	static SerializedSlot open() {
		SerializedSlot slot = new SerializedSlot(false, false, null, null);
		current.set(slot);
		return slot;
	}

	/** Open a slot that makes the serializers return stored bytes for the send about to happen on this thread. */
	static SerializedSlot replay(byte @Nullable [] key, byte @Nullable [] value) {
		SerializedSlot slot = new SerializedSlot(true, true, key, value);
		current.set(slot);
		return slot;
	}

	/**
	 * Open a slot that makes the value serializer return stored bytes for the send about to happen on this thread; the
	 * key is serialized as usual (a reply's key is the key of the request at hand).
	 */
	static SerializedSlot replayValue(byte @Nullable [] value) {
		SerializedSlot slot = new SerializedSlot(true, false, null, value);
		current.set(slot);
		return slot;
	}

	/** Whether a stored output is being sent again on this thread. */
	static boolean replaying() {
		SerializedSlot slot = current.get();
		return slot != null && slot.replay;
	}

	static @Nullable SerializedSlot current() {
		return current.get();
	}

	boolean isReplay() {
		return this.replay;
	}

	/** Whether the serializer of the key (or of the value) returns stored bytes in this send. */
	boolean replays(boolean isKey) {
		return this.replay && (!isKey || this.replayKey);
	}

	byte @Nullable [] bytes(boolean isKey) {
		return isKey ? this.key : this.value;
	}

	void serialized(boolean isKey, byte @Nullable [] bytes) {
		if (isKey) {
			this.key = bytes;
			this.keySerialized = true;
		}
		else {
			this.value = bytes;
			this.valueSerialized = true;
		}
	}

	/** The idempotency key a batch listener's output got from its content in this send, or {@code null}. */
	byte @Nullable [] batchKey() {
		return this.batchKey;
	}

	void batchKey(byte[] key) {
		this.batchKey = key;
	}

	/** The placeholder key a batch listener's record got before it was sent, or {@code null}. */
	byte @Nullable [] placeholder() {
		return this.placeholder;
	}

	void placeholder(byte[] key) {
		this.placeholder = key;
	}

	/** Whether both serializers of the send were ours (a producer created with others cannot be captured). */
	boolean complete() {
		return this.keySerialized && this.valueSerialized;
	}

	@Override
	public void close() {
		current.remove();
	}

}
