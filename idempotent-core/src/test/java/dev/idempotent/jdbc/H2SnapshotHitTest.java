package dev.idempotent.jdbc;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * H2 under REPEATABLE READ: a key committed after the transaction's snapshot is found taken by the claim INSERT but
 * invisible to every read of the transaction. The store then looks the key up outside the transaction; when the
 * DataSource it was given hands out the transaction's own connection (a {@link TransactionAwareDataSourceProxy}, a
 * JTA DataSource), that look-up sees the same snapshot. The claim must still be transient (a retry sees the row and
 * finds a hit), never "another unique constraint was violated" (an error that dead-letters a duplicate).
 */
class H2SnapshotHitTest {

	private final DataSource target = TestDatabases.h2();

	private TableName table;

	@BeforeEach
	void createTable() {
		this.table = TestDatabases.createClaimTable(this.target, SqlDialect.H2);
	}

	@AfterEach
	void dropTable() {
		TestDatabases.drop(this.target, this.table.value());
	}

	@Test
	void aKeyCommittedAfterTheSnapshotIsTransientThroughATransactionAwareDataSource() {
		DataSource proxy = new TransactionAwareDataSourceProxy(this.target);
		JdbcClaimStore store = new JdbcClaimStore(proxy, this.table, SqlDialect.H2, Clock.systemUTC());
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(proxy);
		TransactionTemplate claimTransaction = new TransactionTemplate(transactionManager);
		TransactionTemplate listenerTransaction = new TransactionTemplate(transactionManager);
		listenerTransaction.setIsolationLevel(Isolation.REPEATABLE_READ.value());
		ClaimRequest request = new ClaimRequest("ledger", "order-1", null);

		assertThatThrownBy(() -> listenerTransaction.executeWithoutResult((status) -> {
			new JdbcTemplate(proxy).queryForList("SELECT idempotency_key FROM " + this.table, String.class);
			CompletableFuture.runAsync(() -> claimTransaction.executeWithoutResult((other) -> store.claim(request)))
				.join();
			ClaimResult result = store.claim(request);
			throw new AssertionError("a key invisible to the snapshot cannot be decided, yet it was: " + result);
		})).isInstanceOf(TransientClaimException.class);
	}

}
