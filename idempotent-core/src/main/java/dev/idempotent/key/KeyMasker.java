package dev.idempotent.key;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renders idempotency keys for logs, exception messages and the actuator endpoint. Keys can be personal data (a phone
 * number, an account, an order number), so by default ({@link #MASKED}) only the first and last two characters of a
 * key of 8 or more characters are shown, every other character is replaced by {@code *}, and a short fingerprint
 * follows, so that lines about one key can be correlated: {@code ORD-12345} becomes {@code OR*****45#3f0c9a1e}.
 * {@link #CLEAR} shows keys as they are.
 * <p>The fingerprint is the first 8 hex digits (32 bits) of the HMAC-SHA256 of the key's UTF-8 bytes under a secret:
 * the installation's secret ({@link #of(boolean, String)}, property {@code idempotent.key-mask-secret}), or else a
 * random secret drawn once per process, so that masks of one key differ between instances and across restarts.
 * <p><b>What the mask hides, and what it does not.</b> Without the secret, the fingerprint tells nothing about the key:
 * trying candidates (every 6-digit number, every phone number of a prefix) is of no use, unlike an unsalted hash,
 * which such keys give away in seconds. The mask does show: the key's length in characters, its first and last two
 * characters when it has 8 or more, and which lines are about the same key (under one secret). Whoever holds the
 * secret can test candidates offline as quickly as with a plain hash, so keep it as secret as the data. 32 bits tell
 * keys apart for correlation, not for identity: among about 77,000 keys, two share a fingerprint with even odds.
 * Masking covers what this library logs or returns; it does not encrypt the table, where keys are stored in clear,
 * nor what other components (drivers, frameworks) log.
 * <p>Thread-safe and immutable.
 *
 * @since 0.1.0
 */
public final class KeyMasker {

	/** The shortest secret {@link #of(boolean, String)} accepts, in characters. */
	public static final int MIN_SECRET_LENGTH = 16;

	private static final Logger logger = LoggerFactory.getLogger(KeyMasker.class);

	private static final String ALGORITHM = "HmacSHA256";

	private static final AtomicBoolean processSecretAnnounced = new AtomicBoolean();

	/** Masks keys with this process's random secret: the default. */
	public static final KeyMasker MASKED = new KeyMasker(true, randomSecret(), false);

	/** Shows keys in clear, for databases whose keys are not personal data. */
	public static final KeyMasker CLEAR = new KeyMasker(false, null, false);

	private static final int SHOWN = 2;

	private static final int MIN_LENGTH_SHOWING_ENDS = 8;

	private static final int FINGERPRINT_BYTES = 4;

	private final boolean masking;

	private final @Nullable SecretKeySpec secret;

	private final boolean installationSecret;

	private KeyMasker(boolean masking, byte @Nullable [] secret, boolean installationSecret) {
		this.masking = masking;
		this.secret = (secret != null) ? new SecretKeySpec(secret, ALGORITHM) : null;
		this.installationSecret = installationSecret;
	}

	/**
	 * Return the masker for a setting, with this process's random secret.
	 * @param mask whether keys are masked
	 * @return {@link #MASKED} or {@link #CLEAR}
	 */
	public static KeyMasker of(boolean mask) {
		return mask ? MASKED : CLEAR;
	}

	/**
	 * Return the masker for the settings of an installation. Without a secret, {@link #MASKED} is returned and one INFO
	 * line (once per process) says that masks are unlinkable across instances and restarts, and how to make them
	 * stable.
	 * @param mask whether keys are masked
	 * @param secret the installation's secret (property {@code idempotent.key-mask-secret}), the same on every
	 * instance that should show the same masks; {@code null} or blank for a random secret per process; ignored when
	 * {@code mask} is {@code false}
	 * @return a masker, never {@code null}
	 * @throws IllegalArgumentException if the secret is shorter than {@value #MIN_SECRET_LENGTH} characters
	 */
	public static KeyMasker of(boolean mask, @Nullable String secret) {
		if (!mask) {
			return CLEAR;
		}
		if (secret == null || secret.isBlank()) {
			if (processSecretAnnounced.compareAndSet(false, true)) {
				logger.info("Idempotency keys in logs are masked with a fingerprint keyed by a random secret of this "
						+ "process: the masks of one key differ between instances and after a restart. For masks that "
						+ "correlate across instances and restarts, set idempotent.key-mask-secret to the same secret "
						+ "(at least {} characters, kept as secret as the keys) on every instance.", MIN_SECRET_LENGTH);
			}
			return MASKED;
		}
		if (secret.length() < MIN_SECRET_LENGTH) {
			throw new IllegalArgumentException("idempotent.key-mask-secret must have at least " + MIN_SECRET_LENGTH
					+ " characters (it has " + secret.length() + "): a short secret can be guessed, and with it every"
					+ " low-entropy key from its mask");
		}
		return new KeyMasker(true, secret.getBytes(StandardCharsets.UTF_8), true);
	}

	/**
	 * Return whether this masker masks keys.
	 * @return {@code true} for {@link #MASKED} and maskers with a secret
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

	private String fingerprint(String key) {
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(this.secret);
			byte[] digest = mac.doFinal(key.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, FINGERPRINT_BYTES);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is required of every Java platform", ex);
		}
	}

	private static byte[] randomSecret() {
		byte[] secret = new byte[32];
		new SecureRandom().nextBytes(secret);
		return secret;
	}

	@Override
	public String toString() {
		if (!this.masking) {
			return "KeyMasker.CLEAR";
		}
		return this.installationSecret ? "KeyMasker[masked, installation secret]" : "KeyMasker.MASKED";
	}

}
