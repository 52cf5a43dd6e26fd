package dev.idempotent.kafka.group;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.listener.DeliveryOutputs;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Which record a failing group is blamed on, with the claim executor on H2: the record whose run failed the group's
 * transaction, never one whose run failed an earlier run of it.
 */
class GroupCommitDeliveryTest {

	private static final DataSource H2 = TestDatabases.h2();

	private final TableName table = TestDatabases.createClaimTable(H2, SqlDialect.H2);

	private final ClaimsFailingOnce store = new ClaimsFailingOnce(
			new JdbcClaimStore(H2, this.table, SqlDialect.H2, Clock.systemUTC()));

	private final TransactionalClaimExecutor executor = new TransactionalClaimExecutor(this.store,
			new DataSourceTransactionManager(H2), ClaimListener.NO_OP, 1);

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	/**
	 * The second record's run fails for a conflict (transient): the executor runs the group again, and that run's
	 * claims fail before the method runs. That failure is no record's: the group is processed record by record, and
	 * every record passes; the second record is not reported (and dead-lettered) for the first run's conflict.
	 */
	@Test
	void aRunAgainThatFailsBeforeItsWorkIsNoRecordsFailure() {
		Listener listener = (key) -> {
			if (this.calls.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet() == 1 && key.equals("k2")) {
				throw new TransientClaimException("a conflict with another transaction", new IllegalStateException());
			}
		};
		this.store.failClaimAll(2);
		List<ConsumerRecord<?, ?>> records = List.of(record(1, "k1"), record(2, "k2"), record(3, "k3"));

		assertThatNoException().isThrownBy(() -> new GroupCommitDelivery(this.executor, new GroupSize(10, Duration.ofSeconds(10)))
			.deliver(records, (record) -> List.of(member(listener, record))));

		assertThat(this.calls).containsOnlyKeys("k1", "k2", "k3");
		assertThat(this.calls.get("k2")).as("failed in the group's first run, passed alone").hasValue(2);
	}

	private GroupMember member(Listener listener, ConsumerRecord<?, ?> record) {
		List<MethodInvocation> collected = new ArrayList<>();
		ProxyFactory factory = new ProxyFactory(listener);
		factory.addAdvice((MethodInterceptor) (invocation) -> {
			// what the idempotent advice does while a group is prepared
			collected.add(((ProxyMethodInvocation) invocation).invocableClone());
			return null;
		});
		String key = (String) record.key();
		((Listener) factory.getProxy()).onRecord(key);
		return new GroupMember(record, new ClaimRequest("group-commit-test", key, null), collected.get(0),
				new DeliveryOutputs(null, false, "listener", null));
	}

	private static ConsumerRecord<?, ?> record(long offset, String key) {
		return new ConsumerRecord<>("orders", 0, offset, key, "credit");
	}

	interface Listener {

		void onRecord(String key);

	}

	/** The store, whose claims of several keys fail at one call. */
	private static final class ClaimsFailingOnce implements ClaimStore {

		private final ClaimStore delegate;

		private final AtomicInteger claimAllCalls = new AtomicInteger();

		private int failing;

		ClaimsFailingOnce(ClaimStore delegate) {
			this.delegate = delegate;
		}

		void failClaimAll(int call) {
			this.failing = call;
		}

		@Override
		public ClaimResult claim(ClaimRequest request) {
			return this.delegate.claim(request);
		}

		@Override
		public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
			if (this.claimAllCalls.incrementAndGet() == this.failing) {
				throw new IllegalStateException("the claims failed");
			}
			return this.delegate.claimAll(requests);
		}

		@Override
		public ClaimCheckpoint checkpoint() {
			return this.delegate.checkpoint();
		}

		@Override
		public boolean isConflict(Throwable failure) {
			return this.delegate.isConflict(failure);
		}

		@Override
		public void markFailed(ClaimRequest request, int attempts, String lastError) {
			this.delegate.markFailed(request, attempts, lastError);
		}

	}

}
