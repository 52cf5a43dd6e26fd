package dev.idempotent.key;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

/**
 * Turns what a key source produced into a validated idempotency key, or rejects it.
 * <p>Accepted values: a {@link CharSequence}, a {@link Number}, a {@link UUID}, or a {@code byte[]} holding
 * UTF-8 (the form Kafka header values take). Anything else is rejected rather than turned into its
 * {@code toString()}, which for most types is not a stable business identity. A key is kept exactly as
 * produced: it is neither trimmed nor normalised, because keys compare byte for byte (docs/semantics.md, "Keys").
 * Keys that a database cannot store faithfully (a NUL character, an unpaired UTF-16 surrogate) are rejected as
 * malformed.
 * <p>Length is counted in Unicode code points, the unit in which MySQL, MariaDB and PostgreSQL count
 * {@code VARCHAR(n)}.
 * <p>Instances are immutable and thread-safe.
 *
 * @since 0.1.0
 */
public final class KeyValidator {

	/** The default maximum key length in characters (code points); the shipped DDL matches it. */
	public static final int DEFAULT_MAX_LENGTH = 128;

	private final int maxLength;

	/**
	 * Create a validator.
	 * @param maxLength the maximum number of characters (code points) of a key, at least 1
	 * @throws IllegalArgumentException if {@code maxLength} is less than 1
	 */
	public KeyValidator(int maxLength) {
		if (maxLength < 1) {
			throw new IllegalArgumentException("maxLength must be at least 1 but was " + maxLength);
		}
		this.maxLength = maxLength;
	}

	/**
	 * Return the maximum key length.
	 * @return the maximum number of characters (code points) of a key
	 */
	public int getMaxLength() {
		return this.maxLength;
	}

	/**
	 * Validate a key.
	 * @param raw what the key source produced, may be {@code null}
	 * @param source a short description of the key source for error messages, e.g. {@code "header 'idempotency-key'"}
	 * @return the key, never {@code null}, never blank, at most {@link #getMaxLength()} code points
	 * @throws InvalidIdempotencyKeyException if the value is null, blank, too long, malformed UTF-8 or of an
	 * unsupported type
	 */
	public String validate(@Nullable Object raw, String source) {
		return validate(raw, "", source);
	}

	/**
	 * Validate a key and put a prefix before it. The blank check applies to the value without the prefix; the
	 * length check to the whole key.
	 * @param raw what the key source produced, may be {@code null}
	 * @param prefix a prefix such as {@code "pay:"}, may be empty, never {@code null}
	 * @param source a short description of the key source for error messages
	 * @return {@code prefix + key}, at most {@link #getMaxLength()} code points
	 * @throws InvalidIdempotencyKeyException if the value is null, blank, too long, malformed UTF-8 or of an
	 * unsupported type
	 */
	public String validate(@Nullable Object raw, String prefix, String source) {
		String text = toText(raw, source);
		if (text.isBlank()) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.BLANK,
					"Idempotency key from " + source + " is " + (text.isEmpty() ? "empty" : "blank"));
		}
		String key = prefix + text;
		String malformed = malformation(key);
		if (malformed != null) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.MALFORMED, "Idempotency key from " + source
					+ " contains " + malformed + ", which databases cannot store faithfully");
		}
		int length = key.codePointCount(0, key.length());
		if (length > this.maxLength) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.TOO_LONG, "Idempotency key from " + source
					+ " has " + length + " characters; the maximum is " + this.maxLength);
		}
		return key;
	}

	/**
	 * Find what a database cannot store as given: NUL (PostgreSQL rejects it) and unpaired UTF-16 surrogates
	 * (drivers replace them with '?', so distinct keys would merge).
	 */
	private static @Nullable String malformation(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '\u0000') {
				return "a NUL character at index " + i;
			}
			if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return "an unpaired UTF-16 surrogate at index " + i;
			}
		}
		return null;
	}

	private static String toText(@Nullable Object raw, String source) {
		if (raw == null) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.NULL, "Idempotency key from " + source
					+ " is null");
		}
		if (raw instanceof CharSequence text) {
			return text.toString();
		}
		if (raw instanceof byte[] bytes) {
			return decodeUtf8(bytes, source);
		}
		if (raw instanceof Number || raw instanceof UUID) {
			return raw.toString();
		}
		throw new InvalidIdempotencyKeyException(InvalidKeyReason.UNSUPPORTED_TYPE, "Idempotency key from " + source
				+ " is a " + raw.getClass().getName()
				+ "; expected a String, a number, a UUID or UTF-8 bytes (select a field in the key expression)");
	}

	private static String decodeUtf8(byte[] bytes, String source) {
		try {
			return StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(bytes))
				.toString();
		}
		catch (CharacterCodingException ex) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.MALFORMED, "Idempotency key from " + source
					+ " is not valid UTF-8 (" + bytes.length + " bytes)", ex);
		}
	}

}
