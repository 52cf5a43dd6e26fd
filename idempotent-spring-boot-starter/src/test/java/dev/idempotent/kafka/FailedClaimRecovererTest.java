package dev.idempotent.kafka;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/** A record already in the dead-letter topic stays recovered when its FAILED row cannot be written. */
class FailedClaimRecovererTest {

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
