package dev.idempotent.output;

import java.util.Arrays;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One header of a stored output, as it was sent.
 *
 * @param name the header's name, never {@code null}
 * @param value the header's value, {@code null} if it had none; not copied, do not change it
 * @since 0.1.0
 */
public record OutputHeader(String name, byte @Nullable [] value) {

	/**
	 * Create a header.
	 * @throws NullPointerException if {@code name} is {@code null}
	 */
	public OutputHeader {
		Objects.requireNonNull(name, "name");
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof OutputHeader header && this.name.equals(header.name)
				&& Arrays.equals(this.value, header.value);
	}

	@Override
	public int hashCode() {
		return 31 * this.name.hashCode() + Arrays.hashCode(this.value);
	}

	@Override
	public String toString() {
		return this.name + "=" + ((this.value != null) ? this.value.length + " bytes" : "null");
	}

}
