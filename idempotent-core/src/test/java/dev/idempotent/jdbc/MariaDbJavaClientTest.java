package dev.idempotent.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.HitLog;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.testsupport.LogRecorder;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Claims and hits on MariaDB through mariadb-java-client, which logs every error the server reports at WARN, with the
 * server's message, on {@value #ERROR_PACKET_LOGGER}: for a duplicate-key error that message holds the scope and the
 * key in clear. A hit must therefore raise no server error: it must leave no WARN and no key in clear in any log.
 * Both single-record INSERTs of the MySQL family run: MariaDB's ({@code INSERT IGNORE ... RETURNING}) and MySQL's
 * ({@code INSERT IGNORE} and its update count), the latter on the MariaDB server, which runs it as MySQL 8 does.
 */
class MariaDbJavaClientTest {

	static final String ERROR_PACKET_LOGGER = "org.mariadb.jdbc.message.server.ErrorPacket";

	private static DataSource dataSource;

	private TableName table;

	@BeforeAll
	static void pool() {
		dataSource = TestDatabases.pool(mariadbJavaClient(), null);
	}

	@AfterAll
	static void closePool() throws Exception {
		((AutoCloseable) dataSource).close();
	}

	/** The MariaDB test database, through mariadb-java-client (which takes only {@code jdbc:mariadb:} URLs). */
	static TestDatabases.Connection mariadbJavaClient() {
		TestDatabases.Connection mariadb = TestDatabases.MARIADB;
		return new TestDatabases.Connection(mariadb.url().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:"), mariadb.user(),
				mariadb.password());
	}

	@AfterEach
	void dropTable() {
		if (this.table != null) {
			TestDatabases.drop(dataSource, this.table.value());
		}
	}

	@ParameterizedTest
	@EnumSource(value = SqlDialect.class, names = { "MARIADB", "MYSQL" })
	void hitsLeaveNoWarningAndNoKeyInClearInAnyLog(SqlDialect dialect) throws Throwable {
		assertThat(SqlDialect.detect(dataSource)).isEqualTo(SqlDialect.MARIADB);
		this.table = TestDatabases.createClaimTable(dataSource, SqlDialect.MARIADB);
		JdbcClaimStore store = new JdbcClaimStore(dataSource, this.table, dialect, Clock.systemUTC());
		RecordingClaimListener listener = new RecordingClaimListener();
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(store, transactionManager, listener, 5);
		LeasedClaimExecutor leased = new LeasedClaimExecutor(
				new JdbcLeasedClaimStore(dataSource, this.table, dialect, Clock.systemUTC()), transactionManager,
				listener, 5);
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			keys.add("+4917612345" + String.format("%03d", i));
		}
		for (String key : keys) {
			executor.execute(request(key), () -> "booked");
			leased.execute(request("sms:" + key), Duration.ofMinutes(1), () -> "sent");
		}
		List<ClaimRequest> batch = new ArrayList<>();
		keys.forEach((key) -> batch.add(request(key)));
		batch.add(request("+4917699999999"));

		try (LogRecorder all = LogRecorder.of(Logger.ROOT_LOGGER_NAME)) {
			for (String key : keys) {
				assertThat(executor.execute(request(key), () -> "booked again")).isInstanceOf(ClaimOutcome.Skipped.class);
				assertThat(leased.execute(request("sms:" + key), Duration.ofMinutes(1), () -> "sent again"))
					.isInstanceOf(ClaimOutcome.Skipped.class);
			}
			assertThat(executor.executeBatch(batch, List::size).hits()).hasSize(keys.size());

			List<ILoggingEvent> events = all.events();
			assertThat(events.stream().filter((event) -> event.getLoggerName().equals(ERROR_PACKET_LOGGER)))
				.as("server errors logged by mariadb-java-client").isEmpty();
			// of the claims' own thread: the pool's housekeeping thread may warn about a loaded machine
			String claiming = Thread.currentThread().getName();
			assertThat(events.stream()
				.filter((event) -> event.getThreadName().equals(claiming) && event.getLevel().isGreaterOrEqual(Level.WARN)))
				.as("WARN and ERROR lines").isEmpty();
			for (ILoggingEvent event : events) {
				String text = text(event);
				assertThat(keys).as("keys in clear in: %s", text).noneMatch(text::contains);
			}
			assertThat(events.stream().filter((event) -> event.getLoggerName().equals(HitLog.LOGGER_NAME)))
				.as("one INFO line per hit, keys masked").hasSize(3 * keys.size());
		}
		assertThat(listener.hits).hasValue(3 * keys.size());
	}

	/**
	 * Recording a dead-lettered record's failure for a key whose row exists but may not be downgraded (it SUCCEEDED,
	 * or holds a live lease) inserts nothing: that INSERT's duplicate must raise no server error either, which
	 * mariadb-java-client would log at WARN with the key in clear.
	 */
	@ParameterizedTest
	@EnumSource(value = SqlDialect.class, names = { "MARIADB", "MYSQL" })
	void recordingTheFailureOfAKeyThatSucceededLogsNoServerError(SqlDialect dialect) throws Throwable {
		this.table = TestDatabases.createClaimTable(dataSource, SqlDialect.MARIADB);
		JdbcClaimStore store = new JdbcClaimStore(dataSource, this.table, dialect, Clock.systemUTC());
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);
		new TransactionalClaimExecutor(store, transactionManager, new RecordingClaimListener(), 5)
			.execute(request("+4917612345678"), () -> "booked");

		try (LogRecorder all = LogRecorder.of(Logger.ROOT_LOGGER_NAME)) {
			new FailureRecorder(store, transactionManager).record(request("+4917612345678"), 3, new IllegalStateException("boom"));

			assertThat(all.events().stream().map(MariaDbJavaClientTest::text))
				.as("log lines with the key in clear").noneMatch((line) -> line.contains("+4917612345678"));
		}
		assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT status FROM " + this.table, Integer.class))
			.as("still SUCCEEDED").isEqualTo(1);
	}

	/**
	 * The claimed path is one statement and a hit two (the INSERT and the locking read of the existing row), counted by
	 * the server on the claim's own connection.
	 */
	@ParameterizedTest
	@EnumSource(value = SqlDialect.class, names = { "MARIADB", "MYSQL" })
	void aClaimIsOneStatementAndAHitTwo(SqlDialect dialect) {
		this.table = TestDatabases.createClaimTable(dataSource, SqlDialect.MARIADB);
		JdbcClaimStore store = new JdbcClaimStore(dataSource, this.table, dialect, Clock.systemUTC());
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));

		int claimed = statementsOf(transactions, () -> store.claim(request("order-1")));
		int hit = statementsOf(transactions, () -> store.claim(request("order-1")));

		assertThat(claimed).as("statements of a claim").isEqualTo(1);
		assertThat(hit).as("statements of a hit").isEqualTo(2);
	}

	/**
	 * Under a non-strict sql_mode the server stores a key the column cannot hold truncated, with a warning instead of an
	 * error (and {@code IGNORE} does so under any mode): the claim must fail, not be claimed under the truncated key.
	 */
	@ParameterizedTest
	@EnumSource(value = SqlDialect.class, names = { "MARIADB", "MYSQL" })
	void aKeyTheColumnCannotHoldFailsTheClaimInsteadOfBeingStoredTruncated(SqlDialect dialect) throws Exception {
		this.table = TestDatabases.createClaimTable(dataSource, SqlDialect.MARIADB);
		new JdbcTemplate(dataSource).execute("ALTER TABLE " + this.table + " MODIFY idempotency_key VARCHAR(8)"
				+ " CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL");
		DataSource lenient = TestDatabases.pool(mariadbJavaClient(), "SET sql_mode = ''");
		try {
			JdbcClaimStore store = new JdbcClaimStore(lenient, this.table, dialect, Clock.systemUTC());
			TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(lenient));

			assertThatThrownBy(() -> transactions.execute((status) -> store.claim(request("order-123456789"))))
				.isInstanceOf(DataIntegrityViolationException.class)
				.hasMessageContaining("altered")
				.hasMessageNotContaining("order-123456789");
			assertThat(new JdbcTemplate(lenient).queryForObject("SELECT COUNT(*) FROM " + this.table, Integer.class))
				.as("the claim rolled back").isZero();
		}
		finally {
			((AutoCloseable) lenient).close();
		}
	}

	private static int statementsOf(TransactionTemplate transactions, Supplier<ClaimResult> claim) {
		Integer statements = transactions.execute((status) -> {
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			long baseline = -(questions(jdbc) - questions(jdbc));
			long before = questions(jdbc);
			claim.get();
			return (int) (questions(jdbc) - before - baseline);
		});
		return (statements != null) ? statements : -1;
	}

	/** The statements the server counted on this session so far (each reading counts itself). */
	private static long questions(JdbcTemplate jdbc) {
		Long questions = jdbc.queryForObject("SHOW SESSION STATUS LIKE 'Questions'", (rs, n) -> rs.getLong(2));
		return (questions != null) ? questions : -1;
	}

	private static String text(ILoggingEvent event) {
		StringBuilder text = new StringBuilder(event.getFormattedMessage());
		for (IThrowableProxy error = event.getThrowableProxy(); error != null; error = error.getCause()) {
			text.append(" | ").append(error.getMessage());
		}
		return text.toString();
	}

	private static ClaimRequest request(String key) {
		return new ClaimRequest("ledger", key, new DeliverySource("orders", 2, 42));
	}

}
