package dev.idempotent.capture;

import java.util.Map;

import dev.idempotent.output.OutputRejectedException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;
import org.jspecify.annotations.Nullable;

/**
 * A serializer that serializes with the application's, and tells the {@link SerializedSlot} of the current send what
 * it produced; while a stored output is sent again, it returns the stored bytes instead. Thread-safe as the wrapped
 * serializer is.
 */
final class CapturingSerializer<T> implements Serializer<T> {

	private final Serializer<T> delegate;

	private final boolean isKey;

	private final int maxBytes;

	CapturingSerializer(Serializer<T> delegate, boolean isKey, int maxBytes) {
		this.delegate = delegate;
		this.isKey = isKey;
		this.maxBytes = maxBytes;
	}

	@Override
	public void configure(Map<String, ?> configs, boolean isKey) {
		this.delegate.configure(configs, isKey);
	}

	@Override
	public byte @Nullable [] serialize(String topic, @Nullable T data) {
		return serialized(topic, this.delegate.serialize(topic, data));
	}

	@Override
	public byte @Nullable [] serialize(String topic, Headers headers, @Nullable T data) {
		SerializedSlot slot = SerializedSlot.current();
		if (slot != null && slot.replays(this.isKey)) {
			return slot.bytes(this.isKey);
		}
		byte @Nullable [] bytes = serialized(topic, this.delegate.serialize(topic, headers, data));
		Capture capture = Capture.current();
		if (!this.isKey && capture != null && slot != null && !slot.isReplay()) {
			capture.serialized(slot, topic, headers, slot.bytes(true), bytes); // the key was serialized first
		}
		return bytes;
	}

	private byte @Nullable [] serialized(String topic, byte @Nullable [] bytes) {
		SerializedSlot slot = SerializedSlot.current();
		if (slot != null && !slot.isReplay()) {
			if (bytes != null && bytes.length > this.maxBytes) {
				throw new OutputRejectedException("A record sent to " + topic + " under a claim has a "
						+ (this.isKey ? "key" : "value") + " of " + bytes.length + " bytes, more than"
						+ " idempotent.outputs.max-bytes=" + this.maxBytes + ": it cannot be stored to be re-sent on a"
						+ " hit; it was not sent and the claim rolls back. Raise the limit or turn outputs off for this"
						+ " listener (@IdempotentListener(outputs = false)).");
			}
			slot.serialized(this.isKey, bytes);
		}
		return bytes;
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
