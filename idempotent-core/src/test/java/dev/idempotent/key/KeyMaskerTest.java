package dev.idempotent.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import ch.qos.logback.classic.Level;
import dev.idempotent.testsupport.LogRecorder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeyMaskerTest {

	private static final String SECRET = "correct horse battery staple";

	@Test
	void masksAllButTheEndsOfLongKeysAndAddsAStableFingerprint() {
		String masked = KeyMasker.MASKED.mask("ORD-12345");
		assertThat(masked).matches("OR\\*{5}45#[0-9a-f]{8}");
		assertThat(KeyMasker.MASKED.mask("ORD-12345")).isEqualTo(masked);
		assertThat(KeyMasker.MASKED.mask("ORD-12346")).isNotEqualTo(masked);
	}

	@Test
	void masksShortKeysWhole() {
		assertThat(KeyMasker.MASKED.mask("1234567")).matches("\\*{7}#[0-9a-f]{8}");
	}

	@Test
	void countsCharactersNotUtf16Units() {
		assertThat(KeyMasker.MASKED.mask("😀😀ab-cd😀😀")).startsWith("😀😀*****😀😀#");
	}

	@Test
	void clearShowsKeysAsTheyAre() {
		assertThat(KeyMasker.CLEAR.mask("ORD-12345")).isEqualTo("ORD-12345");
		assertThat(KeyMasker.of(false)).isSameAs(KeyMasker.CLEAR);
		assertThat(KeyMasker.of(false, SECRET)).isSameAs(KeyMasker.CLEAR);
		assertThat(KeyMasker.MASKED.mask(null)).isEqualTo("null");
	}

	/**
	 * The fingerprint is the first 8 hex digits of HMAC-SHA256(secret, key): the same for every instance and release
	 * with one secret (computed independently: {@code printf ORD-12345 | openssl dgst -sha256 -hmac '<secret>'}).
	 */
	@Test
	void aKnownSecretGivesAStableMask() {
		assertThat(KeyMasker.of(true, SECRET).mask("ORD-12345")).isEqualTo("OR*****45#93e41f33");
		assertThat(KeyMasker.of(true, SECRET).mask("ORD-12345")).isEqualTo(KeyMasker.of(true, SECRET).mask("ORD-12345"));
		assertThat(KeyMasker.of(true, SECRET).isMasking()).isTrue();
	}

	@Test
	void twoSecretsGiveDifferentMasks() {
		assertThat(KeyMasker.of(true, SECRET).mask("ORD-12345"))
			.isNotEqualTo(KeyMasker.of(true, SECRET + "!").mask("ORD-12345"))
			.isNotEqualTo(KeyMasker.MASKED.mask("ORD-12345"));
	}

	/** The only test that asks for a masker without a secret, so that it sees the one INFO line of this JVM. */
	@Test
	void withoutASecretTheProcessSecretMasksAndOneInfoLineSaysHowToMakeMasksStable() {
		try (LogRecorder log = LogRecorder.of(KeyMasker.class.getName())) {
			assertThat(KeyMasker.of(true, null)).isSameAs(KeyMasker.MASKED);
			assertThat(KeyMasker.of(true, "  ")).isSameAs(KeyMasker.MASKED);
			assertThat(KeyMasker.of(true)).isSameAs(KeyMasker.MASKED);

			assertThat(log.messages(Level.INFO)).singleElement()
				.asString()
				.contains("random secret of this process", "differ between instances and after a restart",
						"set idempotent.key-mask-secret to the same secret (at least 16 characters");
		}
	}

	@Test
	void aShortSecretIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> KeyMasker.of(true, "123456"))
			.withMessageContaining("idempotent.key-mask-secret must have at least 16 characters (it has 6)")
			.withMessageNotContaining("123456\"");
	}

	/**
	 * An unsalted SHA-256 prefix gave a 6-digit key away to anyone trying the million candidates. The keyed mask does
	 * not: it is not the unsalted prefix, and the attack that used to find the key finds at most chance collisions
	 * (about one in 4,300 keys), never the key.
	 */
	@Test
	void aSixDigitKeyCannotBeFoundFromItsMaskWithoutTheSecret() throws Exception {
		String key = "483920";
		for (KeyMasker masker : List.of(KeyMasker.MASKED, KeyMasker.of(true, SECRET))) {
			String fingerprint = masker.mask(key).substring(key.length() + 1);
			assertThat(fingerprint).isNotEqualTo(unsaltedFingerprint(key));

			List<String> candidates = new ArrayList<>();
			MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
			for (int i = 0; i < 1_000_000; i++) {
				String candidate = Integer.toString(1_000_000 + i).substring(1);
				byte[] digest = sha256.digest(candidate.getBytes(StandardCharsets.UTF_8));
				if (HexFormat.of().formatHex(digest, 0, 4).equals(fingerprint)) {
					candidates.add(candidate);
				}
			}
			assertThat(candidates).doesNotContain(key).hasSizeLessThan(3);
		}
	}

	private static String unsaltedFingerprint(String key) throws Exception {
		byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
		return HexFormat.of().formatHex(digest, 0, 4);
	}

}
