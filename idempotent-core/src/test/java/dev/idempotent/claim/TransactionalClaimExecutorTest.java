package dev.idempotent.claim;

import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The executor's retry of transient claim failures, with a store that fails on purpose. */
class TransactionalClaimExecutorTest {

	private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(TestDatabases.h2());

	private final RecordingClaimListener listener = new RecordingClaimListener();

	@Test
	void retriesTheWholeTransactionAfterATransientClaimFailure() throws Throwable {
		FailingStore store = new FailingStore(2);
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(store, this.transactionManager, this.listener, 5);

		ClaimOutcome<String> outcome = executor.execute(request(), () -> "done");

		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>("done", false));
		assertThat(store.claims).hasValue(3);
		assertThat(this.listener.hits).hasValue(0);
	}

	@Test
	void givesUpAfterTheConfiguredRetries() {
		FailingStore store = new FailingStore(10);
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(store, this.transactionManager, this.listener, 2);

		assertThatThrownBy(() -> executor.execute(request(), () -> "done")).isInstanceOf(TransientClaimException.class);
		assertThat(store.claims).hasValue(3);
	}

	@Test
	void doesNotRetryInsideAJoinedTransaction() {
		FailingStore store = new FailingStore(1);
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(store, this.transactionManager, this.listener, 5);

		assertThatThrownBy(() -> new TransactionTemplate(this.transactionManager).executeWithoutResult((status) -> {
			try {
				executor.execute(request(), () -> "done");
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new AssertionError(ex);
			}
		})).isInstanceOf(TransientClaimException.class);
		assertThat(store.claims).hasValue(1);
	}

	private static ClaimRequest request() {
		return new ClaimRequest("ledger", "order-1", null);
	}

	/** Fails the first {@code failures} claims with a deadlock, then claims. */
	private static final class FailingStore implements ClaimStore {

		final AtomicInteger claims = new AtomicInteger();

		private final int failures;

		FailingStore(int failures) {
			this.failures = failures;
		}

		@Override
		public ClaimResult claim(ClaimRequest request) {
			if (this.claims.incrementAndGet() <= this.failures) {
				throw new TransientClaimException("deadlock", new java.sql.SQLTransactionRollbackException("x", "40001", 1213));
			}
			return new ClaimResult.Claimed(false);
		}

		@Override
		public void markFailed(ClaimRequest request, int attempts, String lastError) {
		}

	}

}
