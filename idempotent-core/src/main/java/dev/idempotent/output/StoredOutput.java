package dev.idempotent.output;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A record a listener sent while it ran under a claim, as it went to the producer: serialized key and value, the
 * explicit partition if the sender chose one, and the headers in their order.
 *
 * @param topic the topic it was sent to, never {@code null}
 * @param partition the partition the sender chose, or {@code null} for the producer's partitioner
 * @param key the serialized key, {@code null} for none; not copied, do not change it
 * @param value the serialized value, {@code null} for a tombstone; not copied, do not change it
 * @param headers the headers in their order, never {@code null}
 * @since 0.1.0
 */
public record StoredOutput(String topic, @Nullable Integer partition, byte @Nullable [] key, byte @Nullable [] value,
		List<OutputHeader> headers) {

	/**
	 * Create an output.
	 * @throws NullPointerException if {@code topic} or {@code headers} is {@code null}
	 */
	public StoredOutput {
		Objects.requireNonNull(topic, "topic");
		headers = List.copyOf(headers);
	}

	/**
	 * Return the bytes the output takes in storage: key, value, header names and values.
	 * @return the size in bytes, 0 or more
	 */
	public int size() {
		int size = ((this.key != null) ? this.key.length : 0) + ((this.value != null) ? this.value.length : 0);
		for (OutputHeader header : this.headers) {
			size += header.name().length() + ((header.value() != null) ? header.value().length : 0);
		}
		return size;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof StoredOutput output && this.topic.equals(output.topic)
				&& Objects.equals(this.partition, output.partition) && Arrays.equals(this.key, output.key)
				&& Arrays.equals(this.value, output.value) && this.headers.equals(output.headers);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.topic, this.partition, Arrays.hashCode(this.key), Arrays.hashCode(this.value),
				this.headers);
	}

	@Override
	public String toString() {
		return "StoredOutput[" + this.topic + ((this.partition != null) ? "-" + this.partition : "") + ", value "
				+ ((this.value != null) ? this.value.length + " bytes" : "null") + ", headers " + this.headers + "]";
	}

}
