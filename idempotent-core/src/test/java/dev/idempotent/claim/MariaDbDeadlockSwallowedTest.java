package dev.idempotent.claim;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener that catches a deadlock of its own business write and returns normally, on MariaDB: InnoDB rolled the
 * whole transaction back, claim included, and the commit that follows commits nothing. The executor must not return
 * as if the claim had committed. Known gap, not fixed (see the review report): the executor returns Processed, the
 * claim row is gone, and the caller would commit the offset.
 */
@Disabled("known gap: a deadlock that the work catches rolled the claim back on InnoDB; the executor cannot see it"
		+ " without a round trip per record")
class MariaDbDeadlockSwallowedTest {

	private final DataSource dataSource = TestDatabases.mariadb();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

	private final String business = "business_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

	private TableName table;

	@BeforeEach
	void createTables() {
		this.table = TestDatabases.createClaimTable(this.dataSource, SqlDialect.MARIADB);
		this.jdbc.execute("CREATE TABLE " + this.business + " (id VARCHAR(64) PRIMARY KEY, n INT) ENGINE=InnoDB");
		this.jdbc.update("INSERT INTO " + this.business + " VALUES ('a', 0), ('b', 0)");
	}

	@AfterEach
	void dropTables() {
		TestDatabases.drop(this.dataSource, this.table.value());
		TestDatabases.drop(this.dataSource, this.business);
	}

	@Test
	void aWorkThatSwallowsADeadlockDoesNotPassForACommittedClaim() throws Exception {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(this.dataSource, this.table, SqlDialect.MARIADB, Clock.systemUTC()),
				new JdbcTransactionManager(this.dataSource), new RecordingClaimListener(), 5);
		CountDownLatch otherHoldsB = new CountDownLatch(1);
		// the other transaction writes more rows, so that InnoDB picks the claim's transaction as the deadlock victim
		CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
			try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
				connection.setAutoCommit(false);
				statement.execute("CREATE TEMPORARY TABLE heavy (n INT) ENGINE=InnoDB");
				statement.execute("INSERT INTO heavy SELECT seq FROM seq_1_to_2000");
				statement.executeUpdate("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'b'");
				otherHoldsB.countDown();
				await().atMost(Duration.ofSeconds(20)).until(() -> this.jdbc.queryForObject(
						"SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", Integer.class) > 0);
				statement.executeUpdate("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'a'");
				connection.rollback();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});

		Throwable thrown = null;
		try {
			executor.executeInOwnTransaction(new ClaimRequest("deadlock", "order-1", null), () -> {
				this.jdbc.update("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'a'");
				otherHoldsB.await(20, TimeUnit.SECONDS);
				try {
					this.jdbc.update("UPDATE " + this.business + " SET n = n + 1 WHERE id = 'b'");
				}
				catch (DataAccessException deadlock) {
					// "log and go on": InnoDB has rolled the whole transaction back, claim included
				}
				return "handled";
			});
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		other.get(30, TimeUnit.SECONDS);
		Integer rows = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.value()
				+ " WHERE idempotency_key = ?", Integer.class, "order-1");
		assertThat(rows).as("the claim was the deadlock victim (else this test proves nothing)").isZero();
		assertThat(thrown).as("the claim did not commit: the caller must not commit the offset").isNotNull();
	}

}
