package dev.idempotent.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import ch.qos.logback.classic.Level;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.testsupport.LogRecorder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Crossings of the hit-ratio threshold and the gauge, on a clock the test moves. */
class HitRatioMonitorTest {

	private final MovableClock clock = new MovableClock(Instant.parse("2026-05-01T10:00:00Z"));

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final HitRatioMonitor monitor = new HitRatioMonitor(Duration.ofMinutes(1), 0.5, 10, this.clock);

	@Test
	void warnsOnceWhenTheRatioRisesAboveTheThresholdWithEnoughSamplesAndInformsWhenItFallsBack() {
		try (LogRecorder log = LogRecorder.of(HitRatioMonitor.LOGGER_NAME)) {
			record("orders", 0, 3);
			record("orders", 6, 0);
			assertThat(log.messages(Level.WARN)).as("9 samples are fewer than 10").isEmpty();

			record("orders", 1, 0);
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("Hit ratio of scope orders is 70.00% over the last 60 s (10 claims), above 50.00%");
			record("orders", 20, 0);
			assertThat(log.messages(Level.WARN)).as("once per crossing").hasSize(1);

			this.clock.advance(Duration.ofMinutes(2));
			record("orders", 0, 1);
			assertThat(log.messages(Level.INFO)).singleElement().asString()
				.contains("Hit ratio of scope orders is back to 0.00%");
			record("orders", 12, 0);
			assertThat(log.messages(Level.WARN)).as("a new crossing").hasSize(2);
		}
	}

	@Test
	void aRatioJustAboveTheThresholdDoesNotReadAsEqualToIt() {
		try (LogRecorder log = LogRecorder.of(HitRatioMonitor.LOGGER_NAME)) {
			record("orders", 0, 5_000);
			record("orders", 5_001, 0);
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("is 50.01% over the last 60 s (10001 claims), above 50.00%");
		}
	}

	@Test
	void theGaugeShowsEachScopesRatioOverTheWindow() {
		record("orders", 1, 3);
		new HitRatioMeters(this.monitor).bindTo(this.registry);
		record("refunds", 2, 0);

		assertThat(gauge("orders")).isEqualTo(0.25);
		assertThat(gauge("refunds")).isEqualTo(1.0);
		assertThat(this.monitor.ratio("orders")).isEqualTo(0.25);

		this.clock.advance(Duration.ofMinutes(5));
		assertThat(gauge("orders")).isNaN();
		assertThat(this.monitor.ratio("unknown")).isNaN();
	}

	@Test
	void redeliveriesOfTheSameRecordsAfterARestartNeitherWarnNorCount() {
		try (LogRecorder log = LogRecorder.of(HitRatioMonitor.LOGGER_NAME)) {
			for (int offset = 0; offset < 100; offset++) {
				hit("orders", new DeliverySource("orders", 0, offset), new DeliverySource("orders", 0, offset));
			}
			record("orders", 0, 5);

			assertThat(log.messages(Level.WARN)).isEmpty();
			assertThat(this.monitor.ratio("orders")).isZero();
		}
	}

	@Test
	void reSendsFromOtherOffsetsWarnAndRedeliveriesDoNotDiluteThem() {
		try (LogRecorder log = LogRecorder.of(HitRatioMonitor.LOGGER_NAME)) {
			for (int offset = 0; offset < 50; offset++) {
				hit("orders", new DeliverySource("orders", 0, offset), new DeliverySource("orders", 0, offset));
			}
			record("orders", 0, 4);
			for (int offset = 100; offset < 106; offset++) {
				hit("orders", new DeliverySource("orders", 1, offset), new DeliverySource("orders", 0, offset - 100));
			}

			assertThat(this.monitor.ratio("orders")).isEqualTo(0.6);
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("Hit ratio of scope orders is 60.00% over the last 60 s (10 claims), above 50.00%",
						"redeliveries of the same record after a restart or rebalance do not count");
		}
	}

	@Test
	void rejectsSettingsOutOfRange() {
		assertThatThrownBy(() -> new HitRatioMonitor(Duration.ofMinutes(1), 1.5, 10, this.clock))
			.isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> new HitRatioMonitor(Duration.ofMinutes(1), 0.5, 0, this.clock))
			.isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> new HitRatioMonitor(Duration.ofMillis(5), 0.5, 1, this.clock))
			.isInstanceOf(IllegalArgumentException.class);
	}

	private double gauge(String scope) {
		return this.registry.get(HitRatioMeters.HIT_RATIO).tag("scope", scope).gauge().value();
	}

	private void hit(String scope, DeliverySource current, DeliverySource stored) {
		this.monitor.onHit(new ClaimRequest(scope, "k", current),
				new ClaimResult.Hit(ClaimStatus.SUCCEEDED, null, null, stored), Duration.ZERO);
	}

	private void record(String scope, int hits, int claims) {
		ClaimRequest request = new ClaimRequest(scope, "k", null);
		for (int i = 0; i < hits; i++) {
			this.monitor.onHit(request, new ClaimResult.Hit(ClaimStatus.SUCCEEDED, null), Duration.ZERO);
		}
		for (int i = 0; i < claims; i++) {
			this.monitor.onClaimed(request, false, Duration.ZERO);
		}
	}

	/** A clock the test moves forward. */
	private static final class MovableClock extends Clock {

		private Instant now;

		MovableClock(Instant now) {
			this.now = now;
		}

		void advance(Duration duration) {
			this.now = this.now.plus(duration);
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

	}

}
