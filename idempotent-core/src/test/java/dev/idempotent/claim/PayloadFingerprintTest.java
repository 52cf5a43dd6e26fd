package dev.idempotent.claim;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a payload fingerprint is computed from. */
class PayloadFingerprintTest {

	@Test
	void aStringAndItsUtf8BytesHaveTheSameSha256() {
		String fingerprint = PayloadFingerprint.of("café");
		assertThat(fingerprint).hasSize(PayloadFingerprint.LENGTH).matches("[0-9a-f]{64}");
		assertThat(PayloadFingerprint.of("café".getBytes(StandardCharsets.UTF_8))).isEqualTo(fingerprint);
		assertThat(PayloadFingerprint.of(""))
			.isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		assertThat(PayloadFingerprint.of("cafe")).isNotEqualTo(fingerprint);
	}

	@Test
	void objectsAreFingerprintedByTheirOwnToStringOnly() {
		assertThat(PayloadFingerprint.of(new Paid("A-1", 100))).isEqualTo(PayloadFingerprint.of("Paid[orderId=A-1, amount=100]"));
		assertThat(PayloadFingerprint.of(new Object())).isNull();
		assertThat(PayloadFingerprint.of(new Opaque())).isNull();
		assertThat(PayloadFingerprint.of(null)).isNull();
	}

	record Paid(String orderId, long amount) {
	}

	static final class Opaque {

	}

}
