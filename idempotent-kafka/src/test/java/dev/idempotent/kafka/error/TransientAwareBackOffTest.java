package dev.idempotent.kafka.error;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
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

	/**
	 * A failure of a whole batch (not a {@code BatchListenerFailedException}) is retried by spring-kafka's fallback
	 * batch handler, which tells its retry listeners through the batch callbacks: each attempt's back-off follows that
	 * failure, not one a record of an earlier delivery left on the thread.
	 */
	@Test
	void aWholeBatchsRetriesFollowTheBatchsOwnFailure() {
		ConsumerRecords<String, String> batch = new ConsumerRecords<>(
				Map.of(new TopicPartition("t", 0), List.of(this.record)));
		Exception broken = new IllegalStateException("broken");
		Exception down = new IllegalStateException("wrapped", new TransientDataAccessResourceException("down"));
		this.backOff.failedDelivery(this.record, broken, 1); // an earlier record failed for good, then passed

		BackOffExecution execution = this.backOff.start();
		execution.nextBackOff(); // spring-kafka asks once before it tells the listeners of the first failure
		for (int i = 0; i < 50; i++) {
			this.backOff.failedDelivery(batch, down, i + 1);
			assertThat(execution.nextBackOff()).as("the database is down: retried until it is back").isEqualTo(1000);
		}
		this.backOff.failedDelivery(batch, broken, 51);
		assertThat(execution.nextBackOff()).isNotEqualTo(BackOffExecution.STOP);
		this.backOff.failedDelivery(batch, broken, 52);
		assertThat(execution.nextBackOff()).isEqualTo(BackOffExecution.STOP);

		this.backOff.recovered(batch, broken);
		assertThat(this.backOff.start().nextBackOff()).as("forgotten once the batch was recovered").isEqualTo(1000);
	}

	private long next(BackOffExecution execution, Exception failure) {
		this.backOff.failedDelivery(this.record, failure, 1);
		return execution.nextBackOff();
	}

}
