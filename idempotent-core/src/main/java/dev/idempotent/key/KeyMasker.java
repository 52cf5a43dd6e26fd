package dev.idempotent.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * Renders idempotency keys for logs and the actuator endpoint. Keys can be personal data (a phone number, an
 * account), so by default ({@link #MASKED}) only the first and last two characters of a key of 8 or more
 * characters are shown, every other character is replaced by {@code *}, and a short fingerprint (the first 8 hex
 * digits of the SHA-256 of the key's UTF-8 bytes) follows, so that lines about one key can be correlated:
 * {@code ORD-12345} becomes {@code OR*****45#b3a1c0de}. {@link #CLEAR} shows keys as they are.
 * <p>The fingerprint of a low-entropy key can be found by trying candidates; masking keeps keys out of log
 * archives, it is not encryption. Thread-safe and immutable.
 *
 * @since 0.1.0
 */
public final class KeyMasker {

	/** Masks keys: the default. */
	public static final KeyMasker MASKED = new KeyMasker(true);

	/** Shows keys in clear, for databases whose keys are not personal data. */
	public static final KeyMasker CLEAR = new KeyMasker(false);

	private static final int SHOWN = 2;

	private static final int MIN_LENGTH_SHOWING_ENDS = 8;

	private final boolean masking;

	private KeyMasker(boolean masking) {
		this.masking = masking;
	}

	/**
	 * Return the masker for a setting.
	 * @param mask whether keys are masked
	 * @return {@link #MASKED} or {@link #CLEAR}
	 */
	public static KeyMasker of(boolean mask) {
		return mask ? MASKED : CLEAR;
	}

	/**
	 * Return whether this masker masks keys.
	 * @return {@code true} for {@link #MASKED}
	 */
	public boolean isMasking() {
		return this.masking;
	}

	/**
	 * Render a key.
	 * @param key the key, may be {@code null}
	 * @return the key masked (or as it is, for {@link #CLEAR}); {@code "null"} for {@code null}
	 */
	public String mask(@Nullable String key) {
		if (key == null) {
			return "null";
		}
		if (!this.masking) {
			return key;
		}
		int[] codePoints = key.codePoints().toArray();
		StringBuilder masked = new StringBuilder(codePoints.length + 9);
		boolean showEnds = codePoints.length >= MIN_LENGTH_SHOWING_ENDS;
		for (int i = 0; i < codePoints.length; i++) {
			boolean shown = showEnds && (i < SHOWN || i >= codePoints.length - SHOWN);
			if (shown) {
				masked.appendCodePoint(codePoints[i]);
			}
			else {
				masked.append('*');
			}
		}
		return masked.append('#').append(fingerprint(key)).toString();
	}

	private static String fingerprint(String key) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 4);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

	@Override
	public String toString() {
		return this.masking ? "KeyMasker.MASKED" : "KeyMasker.CLEAR";
	}

}
