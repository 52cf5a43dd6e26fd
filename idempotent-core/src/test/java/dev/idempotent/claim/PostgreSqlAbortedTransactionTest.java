package dev.idempotent.claim;

import java.time.Clock;
import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A listener that catches a failed statement of its own and returns normally, on PostgreSQL: the failed statement
 * aborted the whole transaction, claim included, and PostgreSQL answers the COMMIT with a ROLLBACK that the JDBC
 * driver does not report. The executor must not return as if the claim had committed (the caller would commit the
 * offset and the record would be lost, with no claim row and no business write).
 */
class PostgreSqlAbortedTransactionTest {

	private final DataSource dataSource = TestDatabases.postgresql();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

	private final RecordingClaimListener listener = new RecordingClaimListener();

	private final String business = "business_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private TableName table;

	@BeforeEach
	void createTables() {
		this.table = TestDatabases.createClaimTable(this.dataSource, SqlDialect.POSTGRESQL);
		this.jdbc.execute("CREATE TABLE " + this.business + " (id VARCHAR(64) PRIMARY KEY)");
		this.jdbc.update("INSERT INTO " + this.business + " VALUES ('taken')");
	}

	@AfterEach
	void dropTables() {
		TestDatabases.drop(this.dataSource, this.table.value());
		TestDatabases.drop(this.dataSource, this.business);
	}

	@Test
	void aWorkThatSwallowsAFailedStatementDoesNotPassForACommittedClaim() {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(this.dataSource, this.table, SqlDialect.POSTGRESQL, Clock.systemUTC()),
				new JdbcTransactionManager(this.dataSource), this.listener, 5);
		ClaimRequest request = new ClaimRequest("aborted", "order-1", null);

		assertThatThrownBy(() -> executor.executeInOwnTransaction(request, () -> {
			try {
				this.jdbc.update("INSERT INTO " + this.business + " VALUES ('taken')");
			}
			catch (DuplicateKeyException alreadyThere) {
				// "already there, fine": but PostgreSQL has aborted the transaction
			}
			return "handled";
		})).as("the claim did not commit: the caller must not commit the offset")
			.isInstanceOf(RuntimeException.class);

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.value() + " WHERE idempotency_key = ?",
				Integer.class, "order-1")).as("no claim row was committed").isZero();
		assertThat(this.listener.claimed).as("a rolled-back claim counts nothing").hasValue(0);
	}

	@Test
	void aFailedStatementUnderASavepointLeavesTheClaimCommittable() throws Throwable {
		JdbcTransactionManager transactionManager = new JdbcTransactionManager(this.dataSource);
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(this.dataSource, this.table, SqlDialect.POSTGRESQL, Clock.systemUTC()),
				transactionManager, this.listener, 5);
		TransactionTemplate nested = new TransactionTemplate(transactionManager);
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);

		ClaimOutcome<String> outcome = executor.executeInOwnTransaction(new ClaimRequest("aborted", "order-2", null),
				() -> {
					try {
						nested.executeWithoutResult(
								(status) -> this.jdbc.update("INSERT INTO " + this.business + " VALUES ('taken')"));
					}
					catch (DuplicateKeyException alreadyThere) {
						// rolled back to the savepoint: the claim's transaction goes on
					}
					this.jdbc.update("INSERT INTO " + this.business + " VALUES ('order-2')");
					return "handled";
				});

		assertThat(outcome).isEqualTo(new ClaimOutcome.Processed<>("handled", false));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.value() + " WHERE idempotency_key = ?",
				Integer.class, "order-2")).isOne();
		assertThat(this.listener.claimed).hasValue(1);
	}

}
