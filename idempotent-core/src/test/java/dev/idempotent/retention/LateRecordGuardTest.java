package dev.idempotent.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.key.KeyMasker;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LateRecordGuardTest {

	static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

	static final Clock CLOCK = Clock.fixed(NOW, ZoneId.of("Pacific/Kiritimati"));

	static final ClaimRequest REQUEST = new ClaimRequest("group", "customer-4711", null);

	final AbstractRetentionJobContractTest.RecordingRetentionListener listener = new AbstractRetentionJobContractTest.RecordingRetentionListener();

	@Test
	void aRecordInsideTheWindowPassesUncounted() {
		LateRecordGuard guard = guard(LateRecordPolicy.DEAD_LETTER);
		guard.check(REQUEST, "orders-0@1", NOW.minus(Duration.ofDays(7)));
		guard.check(REQUEST, "orders-0@1", null);
		assertThat(this.listener.late).hasValue(0);
	}

	@Test
	void aLateRecordIsCountedAndProcessedWithProcess() {
		assertThatNoException().isThrownBy(() -> guard(LateRecordPolicy.PROCESS).check(REQUEST, "orders-0@1",
				NOW.minus(Duration.ofDays(7)).minusMillis(1)));
		assertThat(this.listener.late).hasValue(1);
	}

	@Test
	void aLateRecordIsRefusedWithTheReasonAndAMaskedKeyWithDeadLetter() {
		Instant recordTime = NOW.minus(Duration.ofDays(8));
		assertThatThrownBy(() -> guard(LateRecordPolicy.DEAD_LETTER).check(REQUEST, "orders-0@1", recordTime))
			.isInstanceOfSatisfying(LateRecordException.class, (ex) -> {
				assertThat(ex.getRecordTime()).isEqualTo(recordTime);
				assertThat(ex.getCutoff()).isEqualTo(NOW.minus(Duration.ofDays(7)));
			})
			.hasMessageContaining("Record orders-0@1 (scope=group key=" + KeyMasker.MASKED.mask("customer-4711") + ")")
			.hasMessageContaining("timestamp 2026-02-21T00:00:00Z, older than the retention period PT168H")
			.hasMessageNotContaining("customer-4711");
		assertThat(this.listener.late).hasValue(1);
	}

	@Test
	void withoutRetentionNoRecordIsLate() {
		assertThatNoException().isThrownBy(() -> LateRecordGuard.NONE.check(REQUEST, "orders-0@1", Instant.EPOCH));
	}

	@Test
	void thePolicyNeedsAPositivePeriodAndBatchSize() {
		assertThatThrownBy(() -> new RetentionPolicy(null, RetentionMode.ARCHIVE, false, 10))
			.hasMessageContaining("idempotent.retention.period");
		assertThatThrownBy(() -> new RetentionPolicy(Duration.ZERO, RetentionMode.ARCHIVE, false, 10))
			.hasMessageContaining("positive duration");
		assertThatThrownBy(() -> new RetentionPolicy(Duration.ofDays(1), RetentionMode.DELETE, false, 0))
			.hasMessageContaining("batch size");
	}

	LateRecordGuard guard(LateRecordPolicy policy) {
		return new LateRecordGuard(Duration.ofDays(7), policy, CLOCK, this.listener, KeyMasker.MASKED);
	}

}
