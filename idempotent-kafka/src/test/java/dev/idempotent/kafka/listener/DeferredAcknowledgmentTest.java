package dev.idempotent.kafka.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.support.Acknowledgment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The pure logic of {@link DeliveryAcknowledgment} and {@link DeferredAcknowledgment}: what reaches the container's
 * acknowledgment, when, and from which index, against a recording stand-in for spring-kafka's.
 */
class DeferredAcknowledgmentTest {

	private final Recording container = new Recording(false);

	@Test
	void anAcknowledgeWhileTheTransactionIsOpenIsHeldAndPassedOnWhenTheDeliveryCompletes() throws Throwable {
		DeliveryAcknowledgment delivery = record(this.container);
		Acknowledgment ack = call(delivery, List.of(0), Acknowledgment::acknowledge);
		assertThat(this.container.calls).isEmpty();
		delivery.committed(List.of());
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
		ack.acknowledge();
		assertThat(this.container.calls).as("once").containsExactly("acknowledge()");
	}

	@Test
	void anAcknowledgeAfterTheMethodReturnedAndTheTransactionCommittedPassesStraightThrough() throws Throwable {
		DeliveryAcknowledgment delivery = record(this.container);
		Acknowledgment ack = call(delivery, List.of(0), (a) -> {
		});
		delivery.committed(List.of());
		delivery.complete();
		assertThat(this.container.calls).isEmpty();
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			other.submit((Runnable) ack::acknowledge).get(10, TimeUnit.SECONDS);
		}
		finally {
			other.shutdown();
		}
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	@Test
	void anAcknowledgeInATransactionThatRolledBackIsDroppedThenAndLater() throws Throwable {
		DeliveryAcknowledgment delivery = record(this.container);
		Acknowledgment ack = call(delivery, List.of(0), Acknowledgment::acknowledge);
		delivery.failed();
		ack.acknowledge();
		assertThat(this.container.calls).isEmpty();
	}

	@Test
	void aHitIsAcknowledgedOnTheMethodsBehalf() {
		DeliveryAcknowledgment delivery = record(this.container);
		delivery.committed(List.of(0));
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	@Test
	void aBatchOfHitsOnlyIsAcknowledgedWhole() {
		DeliveryAcknowledgment delivery = batch(this.container, 3);
		delivery.committed(List.of(0, 1, 2));
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	@Test
	void aPartialAcknowledgmentIndexesTheFilteredListAndReachesOverTheHitsAfterIt() throws Throwable {
		// positions 0..5; the method receives positions 0, 1, 3, 5; 2 and 4 are hits
		DeliveryAcknowledgment delivery = batch(this.container, 6);
		call(delivery, List.of(0, 1, 3, 5), (a) -> a.acknowledge(1));
		delivery.committed(List.of(2, 4));
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge(2)");
	}

	@Test
	void partialAcknowledgmentsUpToTheLastElementAcknowledgeTheWholeBatchOnce() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 6);
		call(delivery, List.of(0, 1, 3, 5), (a) -> {
			a.acknowledge(0);
			a.acknowledge(2);
			a.acknowledge(3);
		});
		delivery.committed(List.of(2, 4));
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	@Test
	void anAcknowledgeAfterAPartialOneAcknowledgesTheRestOfTheBatch() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 4);
		Acknowledgment ack = call(delivery, List.of(0, 1, 2, 3), (a) -> a.acknowledge(1));
		delivery.committed(List.of());
		delivery.complete();
		ack.acknowledge();
		assertThat(this.container.calls).containsExactly("acknowledge(1)", "acknowledge(3)");
	}

	@Test
	void aWholeAcknowledgeOfTheFilteredListAcknowledgesTheTrailingHits() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 4);
		call(delivery, List.of(0, 2), Acknowledgment::acknowledge);
		delivery.committed(List.of(1, 3));
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	@Test
	void recordByRecordCallsArePassedOnAsOneAcknowledgmentWhenTheBatchCompletes() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 3);
		call(delivery, List.of(0, 1, 2), Acknowledgment::acknowledge);
		delivery.rolledBack();
		call(delivery, List.of(0), Acknowledgment::acknowledge);
		delivery.committed(List.of());
		delivery.committed(List.of(1));
		call(delivery, List.of(2), Acknowledgment::acknowledge);
		delivery.committed(List.of());
		assertThat(this.container.calls).isEmpty();
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	@Test
	void aFailedBatchPassesNothingTheErrorHandlerCommitsTheRecordsBeforeTheFailedOne() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 3);
		call(delivery, List.of(0), Acknowledgment::acknowledge);
		delivery.committed(List.of());
		delivery.failed();
		assertThat(this.container.calls).isEmpty();
	}

	@Test
	void aNackRollsTheTransactionBackAndIsPassedOnAfterwards() throws Throwable {
		DeliveryAcknowledgment delivery = record(this.container);
		assertThatExceptionOfType(DeliveryAcknowledgment.Nack.class)
			.isThrownBy(() -> call(delivery, List.of(0), (a) -> a.nack(Duration.ofSeconds(1))))
			.satisfies((nack) -> delivery.nacked(nack));
		assertThat(this.container.calls).containsExactly("nack(PT1S)");
	}

	@Test
	void aBatchNackIsPassedOnFromTheFirstElementOfTheMethodsList() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 5);
		assertThatExceptionOfType(DeliveryAcknowledgment.Nack.class)
			.isThrownBy(() -> call(delivery, List.of(1, 3, 4), (a) -> {
				a.acknowledge(0);
				a.nack(2, Duration.ZERO);
			}))
			.satisfies((nack) -> delivery.nacked(nack));
		delivery.complete();
		assertThat(this.container.calls).as("the held acknowledgment rolled back with the transaction")
			.containsExactly("nack(1, PT0S)");
	}

	@Test
	void aNackAfterTheCommitPassesStraightThroughUnlessTheDeliveryFailed() throws Throwable {
		DeliveryAcknowledgment delivery = batch(this.container, 3);
		Acknowledgment first = call(delivery, List.of(0), (a) -> {
		});
		delivery.committed(List.of());
		first.nack(0, Duration.ZERO);
		assertThat(this.container.calls).containsExactly("nack(0, PT0S)");
		delivery.failed();
		first.nack(0, Duration.ZERO);
		first.acknowledge();
		assertThat(this.container.calls).containsExactly("nack(0, PT0S)");
	}

	@Test
	void aMethodWithoutAcknowledgmentRunsAsIs() throws Throwable {
		DeliveryAcknowledgment none = DeliveryAcknowledgment.of(new Object[] { "payload" }, 0, 1, false);
		assertThat(none).isSameAs(DeliveryAcknowledgment.NONE);
		@Nullable Object[] arguments = { "payload" };
		assertThat(none.call(arguments, List.of(0), () -> "ran")).isEqualTo("ran");
		none.committed(List.of(0));
		none.complete();
		assertThat(arguments).containsExactly("payload");
	}

	@Test
	void aNackAfterAnExceptionIsDroppedTheErrorHandlerRetries() {
		DeliveryAcknowledgment delivery = record(this.container);
		assertThatIllegalStateException().isThrownBy(() -> call(delivery, List.of(0), (a) -> {
			a.nack(Duration.ZERO);
			throw new IllegalStateException("failed");
		}));
		delivery.failed();
		assertThat(this.container.calls).isEmpty();
	}

	@Test
	void whatSpringKafkaRefusesWhateverTheAckModeIsRefusedAtOnce() throws Throwable {
		DeliveryAcknowledgment record = record(this.container);
		Acknowledgment single = call(record, List.of(0), (a) -> {
		});
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> single.acknowledge(0));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> single.nack(0, Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> single.nack(Duration.ofMillis(-1)));
		DeliveryAcknowledgment batch = batch(this.container, 4);
		Acknowledgment list = call(batch, List.of(0, 2), (a) -> {
		});
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> list.nack(Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> list.acknowledge(2)).withMessageContaining("out of range");
		assertThatIllegalArgumentException().isThrownBy(() -> list.nack(-1, Duration.ZERO));
		list.acknowledge(1);
		assertThatIllegalArgumentException().isThrownBy(() -> list.acknowledge(0)).withMessageContaining("greater");
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			Future<?> partial = other.submit(() -> list.acknowledge(1));
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> partial.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("consumer thread");
			Future<?> nack = other.submit(() -> single.nack(Duration.ZERO));
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> nack.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("consumer thread");
		}
		finally {
			other.shutdown();
		}
		assertThat(this.container.calls).isEmpty();
	}

	@Test
	void aNackWithOutOfOrderCommitsIsRefusedAsSpringKafkaDoes() throws Throwable {
		Recording async = new Recording(true);
		DeliveryAcknowledgment delivery = record(async);
		Acknowledgment ack = call(delivery, List.of(0), (a) -> {
		});
		assertThat(ack.isOutOfOrderCommit()).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> ack.nack(Duration.ZERO)).withMessageContaining("out-of-order");
	}

	@Test
	void anAcknowledgeRacingTheCommitIsPassedOnExactlyOnceAndNeverBeforeTheCommit() throws Throwable {
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			for (int round = 0; round < 500; round++) {
				Recording target = new Recording(false);
				target.committed = false;
				DeliveryAcknowledgment delivery = record(target);
				Acknowledgment ack = call(delivery, List.of(0), (a) -> {
				});
				CyclicBarrier start = new CyclicBarrier(2);
				Future<?> acknowledging = other.submit(() -> {
					start.await();
					ack.acknowledge();
					return null;
				});
				start.await();
				target.committed = true;
				delivery.committed(List.of());
				delivery.complete();
				acknowledging.get(10, TimeUnit.SECONDS);
				assertThat(target.calls).as("round " + round).containsExactly("acknowledge()");
				assertThat(target.beforeCommit).isEmpty();
			}
		}
		finally {
			other.shutdown();
		}
	}

	@Test
	void behindARecordFilterTheContainersAcknowledgmentIsIndexedInThePolledBatch() throws Throwable {
		// polled offsets 0..4; the filter dropped 0 and 3, so the method's list is offsets 1, 2, 4
		ConsumerRecords<String, String> polled = polled(5);
		DeliveryAcknowledgment delivery = DeliveryAcknowledgment.of(new Object[] { this.container }, 0,
				ContainerBatchPositions.of(List.of(at(polled, 1), at(polled, 2), at(polled, 4)), polled), true);
		Acknowledgment ack = call(delivery, List.of(0, 1, 2), (a) -> a.acknowledge(0));
		delivery.committed(List.of());
		delivery.complete();
		ack.acknowledge(2);
		// without the mapping: acknowledge(0) (the dropped record only), then acknowledge(2), leaving offsets 3 and 4
		assertThat(this.container.calls).containsExactly("acknowledge(1)", "acknowledge(4)");
	}

	@Test
	void behindARecordFilterANackIsIndexedInThePolledBatch() throws Throwable {
		ConsumerRecords<String, String> polled = polled(5);
		DeliveryAcknowledgment delivery = DeliveryAcknowledgment.of(new Object[] { this.container }, 0,
				ContainerBatchPositions.of(List.of(at(polled, 1), at(polled, 2), at(polled, 4)), polled), true);
		Acknowledgment ack = call(delivery, List.of(1, 2), (a) -> {
		});
		delivery.committed(List.of(0));
		delivery.complete();
		ack.nack(1, Duration.ZERO);
		assertThat(this.container.calls).containsExactly("nack(4, PT0S)");
	}

	@Test
	void aPollTheRecordFilterDroppedWholeIsAcknowledgedOnTheMethodsBehalf() {
		ConsumerRecords<String, String> polled = polled(3);
		DeliveryAcknowledgment delivery = DeliveryAcknowledgment.of(new Object[] { this.container }, 0,
				ContainerBatchPositions.of(List.of(), polled), true);
		delivery.committed(List.of());
		delivery.complete();
		assertThat(this.container.calls).containsExactly("acknowledge()");
	}

	private static ConsumerRecords<String, String> polled(int count) {
		List<ConsumerRecord<String, String>> records = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			records.add(new ConsumerRecord<>("orders", 0, i, "key-" + i, "value-" + i));
		}
		return new ConsumerRecords<>(Map.of(new TopicPartition("orders", 0), records));
	}

	private static ConsumerRecord<?, ?> at(ConsumerRecords<String, String> polled, int offset) {
		for (ConsumerRecord<String, String> record : polled) {
			if (record.offset() == offset) {
				return record;
			}
		}
		throw new IllegalArgumentException("no offset " + offset);
	}

	private static DeliveryAcknowledgment record(Acknowledgment container) {
		return DeliveryAcknowledgment.of(new Object[] { container }, 0, 1, false);
	}

	private static DeliveryAcknowledgment batch(Acknowledgment container, int records) {
		return DeliveryAcknowledgment.of(new Object[] { container }, 0, records, true);
	}

	/** Call "the method" as a transaction would, and return the acknowledgment it received. */
	private static Acknowledgment call(DeliveryAcknowledgment delivery, List<Integer> positions, Method method)
			throws Throwable {
		@Nullable Object[] arguments = new Object[1];
		delivery.call(arguments, positions, () -> {
			method.run((Acknowledgment) arguments[0]);
			return null;
		});
		return (Acknowledgment) arguments[0];
	}

	@FunctionalInterface
	interface Method {

		void run(Acknowledgment acknowledgment);

	}

	/** Records what it is asked, like spring-kafka's acknowledgment minus the offsets. */
	static final class Recording implements Acknowledgment {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final List<String> beforeCommit = new CopyOnWriteArrayList<>();

		final boolean outOfOrder;

		volatile boolean committed = true;

		Recording(boolean outOfOrder) {
			this.outOfOrder = outOfOrder;
		}

		@Override
		public void acknowledge() {
			add("acknowledge()");
		}

		@Override
		public void acknowledge(int index) {
			add("acknowledge(" + index + ")");
		}

		@Override
		public void nack(Duration sleep) {
			add("nack(" + sleep + ")");
		}

		@Override
		public void nack(int index, Duration sleep) {
			add("nack(" + index + ", " + sleep + ")");
		}

		@Override
		public boolean isOutOfOrderCommit() {
			return this.outOfOrder;
		}

		private void add(String call) {
			this.calls.add(call);
			if (!this.committed) {
				this.beforeCommit.add(call);
			}
		}

	}

}
