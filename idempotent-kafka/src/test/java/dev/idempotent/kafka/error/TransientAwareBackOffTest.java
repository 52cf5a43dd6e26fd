package dev.idempotent.kafka.error;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

class TransientAwareBackOffTest {

	private final ConsumerRecord<String, String> record = new ConsumerRecord<>("t", 0, 1, "k", "v");

	private final TransientAwareBackOff backOff = new TransientAwareBackOff(new FixedBackOff(100, 2),
			new FixedBackOff(1000, FixedBackOff.UNLIMITED_ATTEMPTS));

	@Test
	void aFailureThatTurnsFromTransientToPermanentRunsOutOfAttempts() {
		BackOffExecution execution = this.backOff.start();
		Exception down = new BatchListenerFailedException("record 3", new TransientDataAccessResourceException("down"), 3);
		Exception broken = new BatchListenerFailedException("record 3", new IllegalStateException("broken"), 3);
		for (int i = 0; i < 50; i++) {
			assertThat(next(execution, down)).isEqualTo(1000);
		}
		assertThat(next(execution, broken)).isEqualTo(100);
		assertThat(next(execution, broken)).isEqualTo(100);
		assertThat(next(execution, broken)).isEqualTo(BackOffExecution.STOP);
	}

	@Test
	void transientFailuresDoNotUseUpThePermanentAttempts() {
		BackOffExecution execution = this.backOff.start();
		Exception down = new IllegalStateException("wrapped", new TransientDataAccessResourceException("down"));
		Exception broken = new IllegalStateException("broken");
		assertThat(next(execution, broken)).isEqualTo(100);
		assertThat(next(execution, down)).isEqualTo(1000);
		assertThat(next(execution, broken)).isEqualTo(100);
		assertThat(next(execution, down)).isEqualTo(1000);
		assertThat(next(execution, broken)).isEqualTo(BackOffExecution.STOP);
	}

	@Test
	void beforeAnyFailureItDoesNotStopSoThatTransientFailuresAreRetriedEvenWithoutRetries() {
		TransientAwareBackOff noRetries = new TransientAwareBackOff(new FixedBackOff(100, 0), new FixedBackOff(1000, 5));
		assertThat(noRetries.start().nextBackOff()).isEqualTo(1000);
	}

	private long next(BackOffExecution execution, Exception failure) {
		this.backOff.failedDelivery(this.record, failure, 1);
		return execution.nextBackOff();
	}

}
