package dev.idempotent.key;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyValidatorTest {

	private final KeyValidator validator = new KeyValidator(8);

	@Test
	void keepsKeysExactlyAsProduced() {
		assertThat(this.validator.validate(" Order-A", "test")).isEqualTo(" Order-A");
		assertThat(this.validator.validate(42L, "test")).isEqualTo("42");
		assertThat(this.validator.validate("a".getBytes(StandardCharsets.UTF_8), "test")).isEqualTo("a");
		UUID uuid = UUID.fromString("0b0e8f4e-2d3a-4c4b-9f43-9a0c1b2d3e4f");
		assertThat(new KeyValidator(36).validate(uuid, "test")).isEqualTo(uuid.toString());
	}

	@Test
	void rejectsNullWithItsReason() {
		assertThatThrownBy(() -> this.validator.validate(null, "header 'idempotency-key'"))
			.isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.NULL))
			.hasMessage("Idempotency key from header 'idempotency-key' is null");
	}

	@Test
	void rejectsEmptyAndBlankKeysEvenWithAPrefix() {
		assertThatThrownBy(() -> this.validator.validate("", "pay:", "test")).hasMessageEndingWith("is empty");
		assertThatThrownBy(() -> this.validator.validate(" \t", "pay:", "test"))
			.isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.BLANK))
			.hasMessageEndingWith("is blank");
	}

	@Test
	void countsLengthInCodePointsPrefixIncluded() {
		String fourByte = "\uD83D\uDCB0";
		assertThat(this.validator.validate(fourByte.repeat(8), "test")).hasSize(16);
		assertThatThrownBy(() -> this.validator.validate(fourByte.repeat(5), "pay:", "test"))
			.isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.TOO_LONG))
			.hasMessage("Idempotency key from test has 9 characters; the maximum is 8");
	}

	@Test
	void rejectsMalformedUtf8() {
		assertThatThrownBy(() -> this.validator.validate(new byte[] { (byte) 0xC3, 0x28 }, "test"))
			.isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.MALFORMED));
	}

	@Test
	void rejectsWhatADatabaseCannotStoreFaithfully() {
		assertThatThrownBy(() -> this.validator.validate("k\u0000", "test"))
			.isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.MALFORMED))
			.hasMessageContaining("a NUL character at index 1");
		assertThatThrownBy(() -> this.validator.validate("k\uD800", "test"))
			.hasMessageContaining("an unpaired UTF-16 surrogate at index 1");
		assertThatThrownBy(() -> this.validator.validate("\uDC00k", "test"))
			.hasMessageContaining("an unpaired UTF-16 surrogate at index 0");
		assertThat(this.validator.validate("k\uD83D\uDCB0", "test")).isEqualTo("k\uD83D\uDCB0");
	}

	@Test
	void rejectsTypesWithoutAStableTextForm() {
		assertThatThrownBy(() -> this.validator.validate(new Object(), "expression '#payload'"))
			.isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
					(ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.UNSUPPORTED_TYPE))
			.hasMessageContaining("java.lang.Object");
	}

	@Test
	void refusesANonPositiveMaximum() {
		assertThatThrownBy(() -> new KeyValidator(0)).isInstanceOf(IllegalArgumentException.class);
	}

}
