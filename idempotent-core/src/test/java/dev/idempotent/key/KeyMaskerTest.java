package dev.idempotent.key;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KeyMaskerTest {

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
		assertThat(KeyMasker.MASKED.mask(null)).isEqualTo("null");
	}

}
