package dev.idempotent.kafka;

import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;

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
	void aConstraintViolationUnderADataSourceTransactionManagerIsNot() {
		TransactionSystemException commitFailure = new TransactionSystemException("Could not commit JDBC transaction",
				new SQLIntegrityConstraintViolationException("deferred constraint", "23505"));

		assertThat(TransientFailures.isTransient(commitFailure)).isFalse();
	}

}
