package dev.idempotent.kafka.error;

import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;

import dev.idempotent.claim.ClaimTransactionLostException;
import dev.idempotent.claim.TransientClaimException;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/** What counts as a transient failure: the database unreachable, whichever transaction manager reports it. */
class TransientFailuresTest {

	@Test
	void aCommitThatLostItsConnectionUnderADataSourceTransactionManagerIsTransient() {
		// DataSourceTransactionManager does not translate: mariadb-java-client's lost connection arrives as it is
		TransactionSystemException commitFailure = new TransactionSystemException("Could not commit JDBC transaction",
				new SQLNonTransientConnectionException("(conn=42) Connection reset", "08000"));

		assertThat(TransientFailures.isTransient(commitFailure)).isTrue();
	}

	@Test
	void aClaimTransactionLostOnEveryRunIsAFailureOfTheRecordThoughEachRunWasTransient() {
		TransientClaimException lastRun = new TransientClaimException("rolled back without an error reaching the"
				+ " application", new java.sql.SQLException("savepoint gone", "42000", 1305));

		assertThat(TransientFailures.isTransient(lastRun)).isTrue();
		assertThat(TransientFailures.isTransient(new org.springframework.kafka.listener.ListenerExecutionFailedException(
				"listener failed", new ClaimTransactionLostException("lost on each of 6 runs", lastRun)))).isFalse();
	}

	@Test
	void aConstraintViolationUnderADataSourceTransactionManagerIsNot() {
		TransactionSystemException commitFailure = new TransactionSystemException("Could not commit JDBC transaction",
				new SQLIntegrityConstraintViolationException("deferred constraint", "23505"));

		assertThat(TransientFailures.isTransient(commitFailure)).isFalse();
	}

}
