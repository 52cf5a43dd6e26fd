package dev.idempotent.claim;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * The digest of a delivery's payload, stored with its claim so that a later hit can tell whether the same key came
 * back with different content (a conflict). It is forensics only: it never decides whether a key is new.
 * <p>The fingerprint is the lowercase hex SHA-256 ({@value #LENGTH} characters) of:
 * <ul>
 * <li>a {@code byte[]}: its bytes;</li>
 * <li>a {@link CharSequence} (a {@code String}): its UTF-8 bytes;</li>
 * <li>any other object: the UTF-8 bytes of its {@code toString()}, but only if its class (or a superclass other
 * than {@code Object}) declares {@code toString()}: records, JSON trees and most value types do. An object with
 * {@code Object}'s identity {@code toString()} would differ on every delivery, so it gets no fingerprint;</li>
 * <li>{@code null} (a tombstone): no fingerprint.</li>
 * </ul>
 * For deserialized objects, equal content must give equal {@code toString()}: prefer fingerprints of the raw
 * {@code byte[]} or {@code String} value. Thread-safe (stateless).
 *
 * @since 0.1.0
 */
public final class PayloadFingerprint {

	/** The length of a fingerprint in characters, the size of its column. */
	public static final int LENGTH = 64;

	private PayloadFingerprint() {
	}

	/**
	 * Compute the fingerprint of a payload.
	 * @param payload the payload, may be {@code null}
	 * @return the fingerprint, or {@code null} if the payload is {@code null} or has no content-based
	 * {@code toString()}
	 */
	public static @Nullable String of(@Nullable Object payload) {
		if (payload == null) {
			return null;
		}
		if (payload instanceof byte[] bytes) {
			return digest(bytes);
		}
		if (payload instanceof CharSequence text) {
			return digest(text.toString().getBytes(StandardCharsets.UTF_8));
		}
		if (!declaresToString(payload.getClass())) {
			return null;
		}
		return digest(payload.toString().getBytes(StandardCharsets.UTF_8));
	}

	private static boolean declaresToString(Class<?> type) {
		try {
			return type.getMethod("toString").getDeclaringClass() != Object.class;
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
	}

	private static String digest(byte[] bytes) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
