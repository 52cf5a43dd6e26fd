package dev.idempotent.kafka.error;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.kafka.support.FailedDeliveries;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/** A record already in the dead-letter topic stays recovered when its FAILED row cannot be written. */
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class FailedClaimRecovererTest {

	@Test
	void everyDeadLetteredRecordIsLoggedWithItsReasonButNotItsKey(org.springframework.boot.test.system.CapturedOutput output) {
		FailedClaimRecoverer recoverer = new FailedClaimRecoverer((record, ex) -> {
		}, new FailureRecorder(new ClaimStore() {
			@Override
			public ClaimResult claim(ClaimRequest request) {
				throw new UnsupportedOperationException();
			}

			@Override
			public ClaimCheckpoint checkpoint() {
				return ClaimCheckpoint.NONE;
			}

			@Override
			public void markFailed(ClaimRequest request, int attempts, String lastError) {
			}
		}, new DataSourceTransactionManager(TestDatabases.h2())));

		recoverer.accept(new ConsumerRecord<>("orders", 1, 8L, "k", "v"), new org.springframework.kafka.listener.ListenerExecutionFailedException(
				"failed", new dev.idempotent.key.InvalidIdempotencyKeyException(dev.idempotent.key.InvalidKeyReason.BLANK,
						"key of +4917600000 is blank", null)));
		recoverer.accept(new ConsumerRecord<>("orders", 2, 9L, "k", "v"),
				new IllegalStateException("payment of +4917600000 refused"));

		assertThat(output).contains("WARN")
			.contains("Dead-lettered orders-1@8: its idempotency key was rejected (BLANK); see docs/operations.md, 'Rejected keys'")
			.contains("Dead-lettered orders-2@9: its processing kept failing (java.lang.IllegalStateException); see"
					+ " docs/operations.md, 'Dead-lettered records'")
			.doesNotContain("4917600000");
	}

	@Test
	void aFailureToMarkTheKeyFailedDoesNotRecoverTheRecordAgain() {
		List<ConsumerRecord<?, ?>> deadLettered = new ArrayList<>();
		List<String> marked = new ArrayList<>();
		ClaimStore unwritable = new ClaimStore() {
			@Override
			public ClaimResult claim(ClaimRequest request) {
				throw new UnsupportedOperationException();
			}

			@Override
			public ClaimCheckpoint checkpoint() {
				return ClaimCheckpoint.NONE;
			}

			@Override
			public void markFailed(ClaimRequest request, int attempts, String lastError) {
				marked.add(request.key());
				throw new DataIntegrityViolationException("value too long for column");
			}
		};
		FailedClaimRecoverer recoverer = new FailedClaimRecoverer((record, ex) -> deadLettered.add(record),
				new FailureRecorder(unwritable, new DataSourceTransactionManager(TestDatabases.h2())));
		ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 0, 7L, "k", "v");
		FailedDeliveries.failed(record, new ClaimRequest("ledger", "order-7", null), 4);

		assertThatNoException().isThrownBy(() -> recoverer.accept(record, new IllegalStateException("boom")));
		assertThat(deadLettered).containsExactly(record);
		assertThat(marked).containsExactly("order-7");
		assertThat(FailedDeliveries.peek(record)).isEmpty();
	}

}
