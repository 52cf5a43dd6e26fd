package dev.idempotent.claim;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.JdbcLeasedClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.LogRecorder;
import dev.idempotent.testsupport.RecordingClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Shadow mode on a real claim store (H2): every key is claimed, a hit is counted and logged as one, and the work runs
 * anyway, for single claims, batches (repeats within the batch included) and leases; with shadow mode off the same
 * hits are skipped.
 */
class ShadowModeTest {

	private final DataSource h2 = TestDatabases.h2();

	private final TableName table = TestDatabases.createClaimTable(this.h2, SqlDialect.H2);

	private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.h2);

	private final RecordingClaimListener listener = new RecordingClaimListener();

	private final List<String> ran = new ArrayList<>();

	@Test
	void aHitRunsTheWorkAndIsCountedAndLoggedAsAHit() throws Throwable {
		TransactionalClaimExecutor executor = executor(true);
		ClaimRequest first = new ClaimRequest("shadow", "order-1", new DeliverySource("orders", 0, 1));
		ClaimRequest resent = new ClaimRequest("shadow", "order-1", new DeliverySource("orders", 0, 2));

		try (LogRecorder hits = LogRecorder.of(HitLog.LOGGER_NAME)) {
			executor.execute(first, () -> this.ran.add("first"));
			ClaimOutcome<Boolean> again = executor.execute(resent, () -> this.ran.add("again"));

			assertThat(again).isEqualTo(new ClaimOutcome.Processed<>(true, false));
			assertThat(hits.messages(Level.INFO)).singleElement()
				.satisfies((line) -> assertThat(line).contains("key=").endsWith("processed (shadow mode)"));
		}
		assertThat(this.ran).containsExactly("first", "again");
		assertThat(this.listener.claimed).hasValue(1);
		assertThat(this.listener.hits).as("the would-be duplicate is counted as a hit").hasValue(1);
		assertThat(rows("order-1")).isOne();
	}

	@Test
	void withoutShadowModeTheSameHitIsSkipped() throws Throwable {
		TransactionalClaimExecutor executor = executor(false);
		ClaimRequest request = new ClaimRequest("shadow", "order-2", null);

		try (LogRecorder hits = LogRecorder.of(HitLog.LOGGER_NAME)) {
			executor.execute(request, () -> this.ran.add("first"));
			assertThat(executor.execute(request, () -> this.ran.add("again"))).isInstanceOf(ClaimOutcome.Skipped.class);
			assertThat(hits.messages(Level.INFO)).singleElement()
				.satisfies((line) -> assertThat(line).endsWith("; skipped"));
		}
		assertThat(this.ran).containsExactly("first");
	}

	@Test
	void aBatchPassesEveryRecordToTheWorkAndCountsItsHits() throws Throwable {
		TransactionalClaimExecutor executor = executor(true);
		executor.execute(new ClaimRequest("shadow", "old", null), () -> null);
		List<ClaimRequest> batch = List.of(new ClaimRequest("shadow", "a", null), new ClaimRequest("shadow", "old", null),
				new ClaimRequest("shadow", "a", null), new ClaimRequest("shadow", "b", null));

		BatchOutcome<List<Integer>> outcome = executor.executeBatch(batch, (positions) -> positions);

		assertThat(outcome.value()).as("every record, repeats and hits included, in order").containsExactly(0, 1, 2, 3);
		assertThat(outcome.hits()).isEmpty();
		assertThat(this.listener.claimed).as("old, a, b").hasValue(3);
		assertThat(this.listener.hits).as("old again, and a's repeat").hasValue(2);
		assertThat(rows("a")).isOne();
		assertThat(rows("b")).isOne();
	}

	@Test
	void aLeasedHitRunsTheWorkAndLeavesTheDoneRowAsItIs() throws Throwable {
		LeasedClaimExecutor leased = new LeasedClaimExecutor(
				new JdbcLeasedClaimStore(this.h2, this.table, SqlDialect.H2, Clock.systemUTC()), this.transactionManager,
				this.listener, 5);
		leased.setShadow(true);
		ClaimRequest request = new ClaimRequest("shadow", "sms-1", null);
		leased.execute(request, Duration.ofMinutes(1), () -> this.ran.add("sent"));
		String status = status("sms-1");

		ClaimOutcome<Boolean> again = leased.execute(request, Duration.ofMinutes(1), () -> this.ran.add("sent again"));

		assertThat(again).isInstanceOf(ClaimOutcome.Processed.class);
		assertThat(this.ran).containsExactly("sent", "sent again");
		assertThat(this.listener.hits).hasValue(1);
		assertThat(status("sms-1")).as("still done, as the first run left it").isEqualTo(status);
		assertThat(status).isEqualTo(String.valueOf(ClaimStatus.SUCCEEDED.code()));
	}

	@Test
	void aLeasedHitWhoseWorkFailsCountsNothing() throws Throwable {
		LeasedClaimExecutor leased = new LeasedClaimExecutor(
				new JdbcLeasedClaimStore(this.h2, this.table, SqlDialect.H2, Clock.systemUTC()), this.transactionManager,
				this.listener, 5);
		leased.setShadow(true);
		ClaimRequest request = new ClaimRequest("shadow", "sms-2", null);
		leased.execute(request, Duration.ofMinutes(1), () -> this.ran.add("sent"));

		assertThatThrownBy(() -> leased.execute(request, Duration.ofMinutes(1), () -> {
			throw new IllegalStateException("the gateway is down");
		})).hasMessage("the gateway is down");

		assertThat(this.listener.hits).as("counted once its work succeeds, as a claim is").hasValue(0);
	}

	private TransactionalClaimExecutor executor(boolean shadow) {
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(
				new JdbcClaimStore(this.h2, this.table, SqlDialect.H2, Clock.systemUTC()), this.transactionManager,
				this.listener, 5);
		executor.setShadow(shadow);
		return executor;
	}

	private int rows(String key) {
		return new JdbcTemplate(this.h2).queryForObject(
				"SELECT COUNT(*) FROM " + this.table.value() + " WHERE scope = 'shadow' AND idempotency_key = ?",
				Integer.class, key);
	}

	private String status(String key) {
		return new JdbcTemplate(this.h2).queryForObject(
				"SELECT status FROM " + this.table.value() + " WHERE scope = 'shadow' AND idempotency_key = ?",
				String.class, key);
	}

}
