package dev.idempotent.claim;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.JdbcLeasedClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Each transaction that settles deliveries gives their sources to the {@link ClaimOffsets} inside it, after its work,
 * and runs what they return after its commit; a failure of the offsets rolls the claims and the work back. On a real
 * claim store (H2).
 */
class ClaimOffsetsTest {

	private final DataSource h2 = TestDatabases.h2();

	private final TableName table = TestDatabases.createClaimTable(this.h2, SqlDialect.H2);

	private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(this.h2);

	private final RecordingOffsets offsets = new RecordingOffsets();

	private final List<String> events = new ArrayList<>();

	@Test
	void aClaimAndAHitStoreTheirOffsetInTheirTransactionAfterTheWork() throws Throwable {
		TransactionalClaimExecutor executor = executor();
		executor.execute(request("order-1", 7), () -> this.events.add("work"));
		executor.execute(request("order-1", 8), () -> this.events.add("work again"));

		assertThat(this.events).as("a hit's stored outputs are sent after its commit: its offset is held")
			.containsExactly("work", "store [orders-0@7] in a transaction", "committed",
					"store [orders-0@8] in a transaction, held", "committed");
	}

	@Test
	void aBatchStoresTheSourcesOfAllItsRecordsHitsAndRepeatsIncluded() throws Throwable {
		TransactionalClaimExecutor executor = executor();
		executor.execute(request("old", 1), () -> null);
		this.events.clear();
		executor.executeBatch(List.of(request("old", 2), request("new", 3), request("new", 4)),
				(positions) -> this.events.add("work " + positions));
		executor.executeBatch(List.of(request("old", 5), request("new", 6)), (positions) -> this.events.add("never"));

		assertThat(this.events).containsExactly("work [1]",
				"store [orders-0@2, orders-0@3, orders-0@4] in a transaction, held", "committed",
				"store [orders-0@5, orders-0@6] in a transaction, held", "committed");
	}

	@Test
	void aTransactionThatStoredWhatARedeliveryMustSendAgainIsHeld() throws Throwable {
		TransactionalClaimExecutor executor = executor();
		executor.execute(request("order-6", 3), () -> {
			HeldOffsets.hold();
			return null;
		});
		executor.execute(request("order-7", 4), () -> null);

		assertThat(this.events).containsExactly("store [orders-0@3] in a transaction, held", "committed",
				"store [orders-0@4] in a transaction", "committed");
	}

	@Test
	void offsetsThatMovedRollTheClaimAndTheWorkBack() throws Throwable {
		TransactionalClaimExecutor executor = executor();
		this.offsets.moved = true;
		assertThatThrownBy(() -> executor.execute(request("order-2", 1), () -> {
			new JdbcTemplate(this.h2).update("INSERT INTO " + this.table + "_work (k) VALUES ('order-2')");
			return null;
		})).hasMessage("moved");
		assertThat(claims("order-2")).isZero();
		assertThat(new JdbcTemplate(this.h2).queryForObject("SELECT COUNT(*) FROM " + this.table + "_work", Integer.class))
			.as("the work's write rolled back with the claim").isZero();
		assertThat(this.events).doesNotContain("committed");
	}

	@Test
	void theFailedRowStoresTheOffsetOfTheDeadLetteredDelivery() {
		FailureRecorder recorder = new FailureRecorder(store(), this.transactionManager);
		recorder.setOffsets(this.offsets);
		recorder.record(request("order-3", 9), 3, new IllegalStateException("boom"));

		assertThat(this.events).containsExactly("store [orders-0@9] in a transaction", "committed");
	}

	@Test
	void aLeaseChecksTheOffsetsBeforeTheWorkAndTheCompletionStoresThem() throws Throwable {
		LeasedClaimExecutor executor = new LeasedClaimExecutor(new JdbcLeasedClaimStore(this.h2, this.table,
				SqlDialect.H2, Clock.systemUTC()), this.transactionManager, ClaimListener.NO_OP, 0);
		executor.setOffsets(this.offsets);
		executor.execute(request("order-4", 11), Duration.ofMinutes(1), () -> this.events.add("side effect"));

		assertThat(this.events).containsExactly("check [orders-0@11] in a transaction", "side effect",
				"store [orders-0@11] in a transaction", "committed");

		this.events.clear();
		this.offsets.moved = true;
		assertThatThrownBy(() -> executor.execute(request("order-5", 12), Duration.ofMinutes(1),
				() -> this.events.add("side effect"))).hasMessage("moved");
		assertThat(this.events).as("no side effect past what the database lost").isEmpty();
		assertThat(claims("order-5")).as("the lease rolled back").isZero();
	}

	private TransactionalClaimExecutor executor() {
		new JdbcTemplate(this.h2).execute("CREATE TABLE IF NOT EXISTS " + this.table + "_work (k VARCHAR(64))");
		TransactionalClaimExecutor executor = new TransactionalClaimExecutor(store(), this.transactionManager,
				ClaimListener.NO_OP, 0);
		executor.setOffsets(this.offsets);
		return executor;
	}

	private JdbcClaimStore store() {
		return new JdbcClaimStore(this.h2, this.table, SqlDialect.H2, Clock.systemUTC());
	}

	private static ClaimRequest request(String key, long offset) {
		return new ClaimRequest("offsets", key, new DeliverySource("orders", 0, offset));
	}

	private int claims(String key) {
		Integer count = new JdbcTemplate(this.h2).queryForObject("SELECT COUNT(*) FROM " + this.table
				+ " WHERE idempotency_key = ?", Integer.class, key);
		return (count != null) ? count : 0;
	}

	private final class RecordingOffsets implements ClaimOffsets {

		boolean moved;

		@Override
		public @Nullable Runnable store(List<@Nullable DeliverySource> sources) {
			ClaimOffsetsTest.this.events.add("store " + sources + (inTransaction() ? " in a transaction" : "")
					+ (HeldOffsets.held() ? ", held" : ""));
			if (this.moved) {
				throw new IllegalStateException("moved");
			}
			return () -> ClaimOffsetsTest.this.events.add("committed");
		}

		@Override
		public void check(List<@Nullable DeliverySource> sources) {
			ClaimOffsetsTest.this.events.add("check " + sources + (inTransaction() ? " in a transaction" : ""));
			if (this.moved) {
				ClaimOffsetsTest.this.events.clear();
				throw new IllegalStateException("moved");
			}
		}

		private boolean inTransaction() {
			return TransactionSynchronizationManager.isActualTransactionActive();
		}

	}

}
