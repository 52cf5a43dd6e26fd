package dev.idempotent.jdbc;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ColumnTimeTest {

	private static final DateTimeFormatter SQL_TEXT = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");

	@Test
	void rendersEveryFieldZeroPadded() {
		assertThat(ColumnTime.text(LocalDateTime.of(7, 1, 2, 3, 4, 5, 6_000))).isEqualTo("0007-01-02 03:04:05.000006");
		assertThat(ColumnTime.text(LocalDateTime.of(2026, 12, 31, 23, 59, 59, 999_999_000)))
			.isEqualTo("2026-12-31 23:59:59.999999");
	}

	@Test
	void rendersAsTheFormatterDoesForAnyTimeOfYearsZeroTo9999() {
		Random random = new Random(7);
		for (int i = 0; i < 10_000; i++) {
			LocalDateTime time = LocalDateTime.of(random.nextInt(10_000), 1 + random.nextInt(12), 1 + random.nextInt(28),
					random.nextInt(24), random.nextInt(60), random.nextInt(60), random.nextInt(1_000_000) * 1_000);
			assertThat(ColumnTime.text(time)).as("%s", time).isEqualTo(SQL_TEXT.format(time));
		}
	}

	@Test
	void refusesYearsThatTakeMoreThanFourDigits() {
		assertThatIllegalArgumentException().isThrownBy(() -> ColumnTime.text(LocalDateTime.of(10_000, 1, 1, 0, 0)));
		assertThatIllegalArgumentException().isThrownBy(() -> ColumnTime.text(LocalDateTime.of(-1, 1, 1, 0, 0)));
	}

}
