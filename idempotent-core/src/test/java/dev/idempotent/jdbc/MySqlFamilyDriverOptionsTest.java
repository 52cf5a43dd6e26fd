package dev.idempotent.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.stream.Stream;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.LeaseResult;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The single-record claim and lease INSERTs of the MySQL family ({@code INSERT IGNORE ... RETURNING} of MariaDB, and
 * MySQL's {@code INSERT IGNORE} with its update count, run on the MariaDB server) through mysql-connector-j, the
 * driver of MySQL users, and mariadb-java-client, with the connection options that change how it executes statements and counts rows, in a
 * session with a non-strict sql_mode: a claim, a hit, and values the table cannot hold (a key, a source topic), which
 * must fail the claim rather than be stored altered.
 */
class MySqlFamilyDriverOptionsTest {

	private DataSource dataSource;

	private TableName table;

	static Stream<Arguments> optionsAndDialects() {
		return Stream.of("", "useServerPrepStmts=true&cachePrepStmts=true", "cachePrepStmts=true",
				"useAffectedRows=true&rewriteBatchedStatements=true", "useServerPrepStmts=true&useCursorFetch=true&defaultFetchSize=10",
				// mariadb-java-client, whose URLs start with jdbc:mariadb:
				"mariadb:useServerPrepStmts=true&cachePrepStmts=true", "mariadb:useAffectedRows=true&useBulkStmts=true")
			.flatMap((options) -> Stream.of(Arguments.of(options, SqlDialect.MARIADB),
					Arguments.of(options, SqlDialect.MYSQL)));
	}

	@AfterEach
	void close() throws Exception {
		if (this.table != null) {
			TestDatabases.drop(this.dataSource, this.table.value());
		}
		((AutoCloseable) this.dataSource).close();
	}

	@ParameterizedTest
	@MethodSource("optionsAndDialects")
	void claimsHitsAndAlteredValuesUnderANonStrictSqlMode(String options, SqlDialect dialect) {
		TestDatabases.Connection mariadb = options.startsWith("mariadb:") ? MariaDbJavaClientTest.mariadbJavaClient()
				: TestDatabases.MARIADB;
		options = options.startsWith("mariadb:") ? options.substring("mariadb:".length()) : options;
		String url = mariadb.url() + (options.isEmpty() ? "" : (mariadb.url().contains("?") ? "&" : "?") + options);
		this.dataSource = TestDatabases.pool(new TestDatabases.Connection(url, mariadb.user(), mariadb.password()),
				"SET sql_mode = ''");
		this.table = TestDatabases.createClaimTable(this.dataSource, SqlDialect.MARIADB);
		new JdbcTemplate(this.dataSource).execute("ALTER TABLE " + this.table + " MODIFY source_topic VARCHAR(10) NULL,"
				+ " MODIFY idempotency_key VARCHAR(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL");
		JdbcClaimStore store = new JdbcClaimStore(this.dataSource, this.table, dialect, Clock.systemUTC());
		JdbcLeasedClaimStore leases = new JdbcLeasedClaimStore(this.dataSource, this.table, dialect, Clock.systemUTC());
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		DeliverySource shortTopic = new DeliverySource("orders", 2, 42);
		DeliverySource longTopic = new DeliverySource("orders-of-the-eu-west", 2, 42);

		for (int round = 0; round < 3; round++) {
			// repeated, so that cached and server-prepared statements run again
			ClaimRequest request = new ClaimRequest("ledger", "order-" + round, shortTopic);
			assertThat((Object) transactions.execute((status) -> store.claim(request))).isEqualTo(new ClaimResult.Claimed(false));
			assertThat((Object) transactions.execute((status) -> store.claim(request))).isInstanceOf(ClaimResult.Hit.class);
			ClaimRequest sms = new ClaimRequest("ledger", "sms-" + round, shortTopic);
			assertThat((Object) transactions.execute((status) -> leases.claimLease(sms, Duration.ofMinutes(1))))
				.isInstanceOf(LeaseResult.Acquired.class);
			assertThat((Object) transactions.execute((status) -> leases.claimLease(sms, Duration.ofMinutes(1))))
				.isInstanceOf(LeaseResult.Held.class);
		}
		assertThatThrownBy(() -> transactions.execute((status) -> store.claim(new ClaimRequest("ledger",
				"order-123456789", shortTopic)))).isInstanceOf(DataIntegrityViolationException.class);
		assertThatThrownBy(() -> transactions.execute((status) -> store.claim(new ClaimRequest("ledger", "order-x",
				longTopic)))).isInstanceOf(DataIntegrityViolationException.class);
		assertThatThrownBy(() -> transactions.execute((status) -> leases.claimLease(new ClaimRequest("ledger", "sms-x",
				longTopic), Duration.ofMinutes(1)))).isInstanceOf(DataIntegrityViolationException.class);
		assertThat(new JdbcTemplate(this.dataSource).queryForObject("SELECT COUNT(*) FROM " + this.table
				+ " WHERE source_topic <> 'orders'", Integer.class)).as("rows stored altered").isZero();
	}

}
