package dev.idempotent.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retention job's statements on MariaDB through both drivers of the MySQL family, with the connection options
 * that change how statements are prepared and executed: {@code LIMIT ? ... FOR UPDATE SKIP LOCKED} prepared on the
 * server, and multi-row archive and delete statements through client- and server-side prepares, bulk and cursor
 * fetches. Each run archives SUCCEEDED and FAILED rows over several batches and leaves the young ones.
 */
class MySqlFamilyDriverRetentionTest {

	private static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

	private DataSource dataSource;

	private TableName table;

	@AfterEach
	void close() throws Exception {
		if (this.table != null) {
			TestDatabases.drop(this.dataSource, this.table.archive().value());
			TestDatabases.drop(this.dataSource, this.table.value());
		}
		((AutoCloseable) this.dataSource).close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "useServerPrepStmts=true&cachePrepStmts=true",
			"useServerPrepStmts=true&useCursorFetch=true&defaultFetchSize=10", "rewriteBatchedStatements=true",
			"mariadb:", "mariadb:useServerPrepStmts=true&cachePrepStmts=true", "mariadb:useBulkStmts=true",
			"mariadb:useServerPrepStmts=true&defaultFetchSize=10" })
	void archivesInBatchesWhateverTheDriverAndItsOptions(String options) {
		TestDatabases.Connection mariadb = options.startsWith("mariadb:")
				? new TestDatabases.Connection(TestDatabases.MARIADB.url().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:"),
						TestDatabases.MARIADB.user(), TestDatabases.MARIADB.password())
				: TestDatabases.MARIADB;
		String query = options.startsWith("mariadb:") ? options.substring("mariadb:".length()) : options;
		String url = mariadb.url() + (query.isEmpty() ? "" : (mariadb.url().contains("?") ? "&" : "?") + query);
		this.dataSource = TestDatabases.pool(new TestDatabases.Connection(url, mariadb.user(), mariadb.password()),
				"SET time_zone = '+05:00'");
		this.table = TestDatabases.createClaimTable(this.dataSource, SqlDialect.MARIADB);
		SchemaInitializer.archive(this.dataSource, this.table.archive(), SqlDialect.MARIADB).initialize();
		Instant old = NOW.minus(Duration.ofDays(8));
		claimAll("old-", 23, old);
		claimAll("young-", 5, NOW);
		JdbcClaimStore failing = store(old);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		for (int i = 0; i < 4; i++) {
			ClaimRequest request = request("failed-" + i);
			transactions.executeWithoutResult((status) -> failing.markFailed(request, 1, "boom"));
		}

		for (int round = 0; round < 2; round++) {
			// twice, so that cached and server-prepared statements run again
			int moved = new JdbcRetentionJob(this.dataSource, this.table, this.table.archive(), SqlDialect.MARIADB,
					new RetentionPolicy(Duration.ofDays(7), RetentionMode.ARCHIVE, true, 5),
					Clock.fixed(NOW, ZoneId.of("UTC")), RetentionListener.NO_OP)
				.run();
			assertThat(moved).isEqualTo((round == 0) ? 27 : 0);
		}
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		assertThat(jdbc.queryForList("SELECT idempotency_key FROM " + this.table + " ORDER BY id", String.class))
			.containsExactly("young-0", "young-1", "young-2", "young-3", "young-4");
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table.archive(), Integer.class)).isEqualTo(27);
	}

	private void claimAll(String prefix, int count, Instant at) {
		List<ClaimRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(request(prefix + i));
		}
		JdbcClaimStore store = store(at);
		new TransactionTemplate(new DataSourceTransactionManager(this.dataSource))
			.executeWithoutResult((status) -> store.claimAll(requests));
	}

	private JdbcClaimStore store(Instant at) {
		return new JdbcClaimStore(this.dataSource, this.table, SqlDialect.MARIADB, Clock.fixed(at, ZoneId.of("UTC")));
	}

	private static ClaimRequest request(String key) {
		return new ClaimRequest("retention-drivers", key, new DeliverySource("orders", 0, 42));
	}

}
