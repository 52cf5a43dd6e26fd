package dev.idempotent.metrics;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The sliding window, on explicit times. */
class HitRatioWindowTest {

	private static final Instant T0 = Instant.parse("2026-05-01T10:00:00Z");

	private final HitRatioWindow window = new HitRatioWindow(Duration.ofSeconds(60), 6);

	@Test
	void anEmptyWindowHasNoRatio() {
		assertThat(this.window.ratio(T0)).isNaN();
		assertThat(this.window.samples(T0)).isZero();
	}

	@Test
	void theRatioIsTheShareOfHitsInTheWindow() {
		this.window.record(T0, true);
		this.window.record(T0.plusSeconds(5), false);
		this.window.record(T0.plusSeconds(25), false);
		this.window.record(T0.plusSeconds(35), true);

		assertThat(this.window.ratio(T0.plusSeconds(40))).isEqualTo(0.5);
		assertThat(this.window.samples(T0.plusSeconds(40))).isEqualTo(4);
	}

	@Test
	void samplesLeaveTheWindowBucketByBucket() {
		this.window.record(T0, true);
		this.window.record(T0.plusSeconds(9), true);
		this.window.record(T0.plusSeconds(30), false);

		assertThat(this.window.samples(T0.plusSeconds(59))).isEqualTo(3);
		assertThat(this.window.ratio(T0.plusSeconds(60))).as("the first bucket left").isCloseTo(0.0, within(1e-9));
		assertThat(this.window.samples(T0.plusSeconds(60))).isEqualTo(1);
		assertThat(this.window.samples(T0.plusSeconds(89))).isEqualTo(1);
		assertThat(this.window.samples(T0.plusSeconds(90))).isZero();
	}

	@Test
	void aLongPauseEmptiesTheWholeWindow() {
		for (int i = 0; i < 50; i++) {
			this.window.record(T0.plusSeconds(i), i % 2 == 0);
		}
		assertThat(this.window.samples(T0.plusSeconds(49))).isEqualTo(50);

		this.window.record(T0.plus(Duration.ofDays(3)), true);

		assertThat(this.window.samples(T0.plus(Duration.ofDays(3)))).isEqualTo(1);
		assertThat(this.window.ratio(T0.plus(Duration.ofDays(3)))).isEqualTo(1.0);
	}

	@Test
	void aClockThatStepsBackRecordsIntoTheCurrentBucket() {
		this.window.record(T0.plusSeconds(30), false);
		this.window.record(T0, true);

		assertThat(this.window.samples(T0.plusSeconds(30))).isEqualTo(2);
		assertThat(this.window.samples(T0.plusSeconds(90))).isZero();
	}

	@Test
	void aWindowNeedsAtLeastOneMillisecondPerBucket() {
		assertThatThrownBy(() -> new HitRatioWindow(Duration.ofMillis(5), 10))
			.isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> new HitRatioWindow(Duration.ofSeconds(1), 0))
			.isInstanceOf(IllegalArgumentException.class);
	}

}
