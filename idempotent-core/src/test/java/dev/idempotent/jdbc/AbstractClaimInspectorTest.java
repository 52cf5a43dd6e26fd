package dev.idempotent.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The operators' read-only queries, written once and run against every supported database by a small subclass.
 * Rows are written by the real stores, with a clock one second further on each write, in a JVM time zone (UTC+8)
 * and session time zones (see {@link TestDatabases}) that differ from UTC.
 */
abstract class AbstractClaimInspectorTest {

	private static final Instant START = Instant.parse("2026-03-04T05:06:07.123456Z");

	private DataSource dataSource;

	private TableName table;

	private SqlDialect dialect;

	private SteppingClock clock;

	private JdbcClaimStore store;

	private TransactionTemplate transactions;

	private FailureRecorder failures;

	private ClaimInspector inspector;

	protected abstract DataSource dataSource();

	@BeforeEach
	void createTable() {
		this.dataSource = dataSource();
		this.dialect = SqlDialect.detect(this.dataSource);
		this.table = TestDatabases.createClaimTable(this.dataSource, this.dialect);
		this.clock = new SteppingClock(START);
		this.store = new JdbcClaimStore(this.dataSource, this.table, this.dialect, this.clock);
		DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.dataSource);
		this.transactions = new TransactionTemplate(transactionManager);
		this.failures = new FailureRecorder(this.store, transactionManager);
		this.inspector = new ClaimInspector(this.dataSource, this.table, this.dialect);
	}

	@AfterEach
	void dropTable() {
		TestDatabases.drop(this.dataSource, this.table.value());
	}

	@Test
	void theProbeAnswersOnAnEmptyTable() {
		this.inspector.probe();
		assertThat(this.inspector.failed(null, 0, 10)).isEmpty();
	}

	@Test
	void theProbeFailsWhenTheTableIsMissing() {
		ClaimInspector missing = new ClaimInspector(this.dataSource, new TableName(this.table.value() + "_none"),
				this.dialect);
		assertThatThrownBy(missing::probe).isInstanceOf(DataAccessException.class);
	}

	@Test
	void findsOneKeysRowWithItsSourceAndUtcTimes() {
		claim("orders", "Order-A", new DeliverySource("payments", 2, 41));
		assertThat(this.inspector.find("orders", "Order-A")).hasValueSatisfying((row) -> {
			assertThat(row.scope()).isEqualTo("orders");
			assertThat(row.key()).isEqualTo("Order-A");
			assertThat(row.status()).isEqualTo(ClaimStatus.SUCCEEDED);
			assertThat(row.attempts()).isEqualTo(1);
			assertThat(row.source()).isEqualTo(new DeliverySource("payments", 2, 41));
			assertThat(row.createdAt()).isEqualTo(START);
			assertThat(row.updatedAt()).isEqualTo(START);
			assertThat(row.leaseUntil()).isNull();
			assertThat(row.lastError()).isNull();
		});
	}

	@Test
	void findComparesKeysByteForByte() {
		claim("orders", "Order-A", null);
		assertThat(this.inspector.find("orders", "order-a")).isEmpty();
		assertThat(this.inspector.find("orders", "Order-A ")).isEmpty();
		assertThat(this.inspector.find("other", "Order-A")).isEmpty();
	}

	@Test
	void pagesFailedRowsNewestFirstAndByScope() {
		claim("orders", "ok-1", null);
		fail("orders", "f-1");
		fail("refunds", "f-2");
		fail("orders", "f-3");
		claim("orders", "ok-2", null);
		fail("orders", "f-4");
		assertThat(keys(this.inspector.failed(null, 0, 3))).containsExactly("f-4", "f-3", "f-2");
		assertThat(keys(this.inspector.failed(null, 3, 3))).containsExactly("f-1");
		assertThat(keys(this.inspector.failed(null, 6, 3))).isEmpty();
		assertThat(keys(this.inspector.failed("orders", 0, 2))).containsExactly("f-4", "f-3");
		assertThat(keys(this.inspector.failed("orders", 1, 2))).containsExactly("f-3", "f-1");
		assertThat(keys(this.inspector.failed("orders", 2, 2))).containsExactly("f-1");
		ClaimRow newest = this.inspector.failed("orders", 0, 1).get(0);
		assertThat(newest.status()).isEqualTo(ClaimStatus.FAILED);
		assertThat(newest.attempts()).isEqualTo(4);
		assertThat(newest.lastError()).isEqualTo("java.lang.IllegalStateException: f-4 failed");
		assertThat(newest.updatedAt()).isEqualTo(START.plusSeconds(5));
		assertThat(newest.source()).isNull();
	}

	@Test
	void refusesPositionsAndLimitsOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.failed(null, -1, 10))
			.withMessageContaining("offset");
		assertThatIllegalArgumentException().isThrownBy(() -> this.inspector.failed(null, 0, 0))
			.withMessageContaining("limit");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.inspector.failed(null, 0, ClaimInspector.MAX_PAGE_SIZE + 1))
			.withMessageContaining("limit");
	}

	private void claim(String scope, String key, DeliverySource source) {
		ClaimResult result = this.transactions
			.execute((status) -> this.store.claim(new ClaimRequest(scope, key, source)));
		assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
	}

	private void fail(String scope, String key) {
		this.failures.record(new ClaimRequest(scope, key, null), 4, new IllegalStateException(key + " failed"));
	}

	private static List<String> keys(List<ClaimRow> rows) {
		return rows.stream().map(ClaimRow::key).toList();
	}

	/** A clock one second further on at every read, from a fixed start. Not thread-safe; each test has its own. */
	private static final class SteppingClock extends Clock {

		private Instant next;

		SteppingClock(Instant start) {
			this.next = start;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Instant instant() {
			Instant now = this.next;
			this.next = now.plus(Duration.ofSeconds(1));
			return now;
		}

	}

}
