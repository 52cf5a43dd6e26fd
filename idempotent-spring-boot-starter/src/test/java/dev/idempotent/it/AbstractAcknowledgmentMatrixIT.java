package dev.idempotent.it;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.ACKNOWLEDGMENT_IN_EVERY_ACK_MODE;
import static dev.idempotent.testsupport.BootLine.ASYNC_ACKS;
import static dev.idempotent.testsupport.BootLine.bootConfiguredFactory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every ack mode, with {@code asyncAcks} on and off, for single-record and batch listeners, on a real broker and
 * a real database: each record takes effect once and the group's committed offset reaches the end of the topic,
 * including when the method acknowledges on another thread after it returned (the async-acks pattern). Also partial
 * batch acknowledgments ({@code acknowledge(int)}, by index into the list the method received, hits filtered out),
 * {@code nack} of a record and of a batch (the claim rolls back, the record comes again), and an acknowledgment made
 * in a transaction that rolls back (never passed on).
 * <p>One context and broker for the class; each case gets its own topic and consumer group, and its own container,
 * created from the listener's container factory for the real {@code @IdempotentListener} method (as
 * {@code @KafkaListener} would), with the case's ack mode. All matrix cases run at once; each test awaits its own.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractAcknowledgmentMatrixIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = AbstractAcknowledgmentMatrixIT.IDLE)
abstract class AbstractAcknowledgmentMatrixIT {

	/** The topic of the two annotated listeners, which never start: each case starts its own container. */
	static final String IDLE = "acks.idle";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	/** What each case's listener does and saw, by topic. */
	static final Map<String, Case> cases = new ConcurrentHashMap<>();

	static final ExecutorService ackers = Executors.newCachedThreadPool();

	static final List<ConcurrentMessageListenerContainer<?, ?>> containers = new CopyOnWriteArrayList<>();

	/** The cases of the tests after the matrix; created per test class, since the subclasses share these fields. */
	static Case PARTIAL;

	static Case EACH;

	static Case NACK;

	static Case BATCH_NACK;

	static Case ROLLBACK;

	static Case ONE_BY_ONE;

	static Case ROLLBACK_ASYNC;

	static KafkaTestSupport kafka;

	static ItLedger ledger;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	/** The ack modes and single/batch, each with asyncAcks off and on. */
	static Stream<Case> matrix() {
		List<Case> all = new ArrayList<>();
		for (boolean batch : new boolean[] { false, true }) {
			for (AckMode mode : AckMode.values()) {
				if (batch && mode == AckMode.RECORD) {
					continue; // spring-kafka refuses RECORD for batch listeners
				}
				if (!ACKNOWLEDGMENT_IN_EVERY_ACK_MODE && !mode.name().startsWith("MANUAL")) {
					continue; // spring-kafka 3 gives an Acknowledgment argument only in the manual ack modes
				}
				// the starter refuses asyncAcks on spring-kafka 3, where a failed record stops its partition for good
				for (boolean asyncAcks : ASYNC_ACKS ? new boolean[] { false, true } : new boolean[] { false }) {
					all.add(new Case((batch ? "batch-" : "record-") + mode.name().toLowerCase() + (asyncAcks ? "-async" : ""),
							batch, mode, asyncAcks, Behaviour.MATRIX));
				}
			}
		}
		return all.stream();
	}

	/**
	 * Start every case at once (the matrix in two rounds), so that the class takes as long as its slowest case.
	 */
	@BeforeAll
	static void startTheMatrix(@Autowired ApplicationContext context, @Autowired EmbeddedKafkaBroker broker)
			throws Exception {
		kafka = new KafkaTestSupport(broker.getBrokersAsString());
		ledger = context.getBean(ItLedger.class);
		List<Case> matrix = matrix().toList();
		PARTIAL = new Case("batch-partial", true, AckMode.MANUAL_IMMEDIATE, false, Behaviour.ACKNOWLEDGE_SECOND);
		EACH = new Case("batch-each", true, AckMode.MANUAL_IMMEDIATE, false, Behaviour.ACKNOWLEDGE_EACH);
		NACK = new Case("record-nack", false, AckMode.MANUAL_IMMEDIATE, false, Behaviour.NACK_FIRST);
		BATCH_NACK = new Case("batch-nack", true, AckMode.MANUAL, false, Behaviour.NACK_FIRST);
		ROLLBACK = new Case("record-rollback", false, AckMode.MANUAL_IMMEDIATE, false,
				Behaviour.ACKNOWLEDGE_THEN_FAIL_FIRST);
		ROLLBACK_ASYNC = new Case("record-rollback-async", false, AckMode.MANUAL, true,
				Behaviour.ACKNOWLEDGE_THEN_FAIL_FIRST);
		ONE_BY_ONE = new Case("batch-one-by-one", true, AckMode.MANUAL, true, Behaviour.ACKNOWLEDGE_THEN_FAIL_FIRST);
		kafka.createTopics(1, Stream.concat(matrix.stream(), Stream.of(PARTIAL, EACH, NACK, BATCH_NACK, ROLLBACK, ROLLBACK_ASYNC, ONE_BY_ONE))
			.map(Case::topic)
			.toArray(String[]::new));
		// positions 0..5; the method receives a, b, c, d (positions 0, 1, 3, 5): positions 2 and 4 are hits
		startWithRecords(context, PARTIAL, "a", "b", "a", "c", "b", "d");
		startWithRecords(context, EACH, "a", "b", "a", "c", "b", "d", "d");
		startWithRecords(context, NACK, "a", "b");
		startWithRecords(context, BATCH_NACK, "a", "b", "c");
		startWithRecords(context, ROLLBACK, "a");
		if (ASYNC_ACKS) {
			startWithRecords(context, ROLLBACK_ASYNC, "a", "b");
			startWithRecords(context, ONE_BY_ONE, "a", "b", "a", "c");
		}
		for (Case c : matrix) {
			cases.put(c.topic(), c);
			// round 1: acknowledged on the consumer thread, then on another thread before the commit, then a hit
			kafka.send(c.topic(), c.key(0), "credit 0");
			kafka.send(c.topic(), c.key(1), "credit 1");
			kafka.send(c.topic(), c.key(0), "credit 0 again");
			start(context, c);
		}
		await().atMost(KafkaTestSupport.timeout())
			.until(() -> matrix.stream().allMatch((c) -> ledger.rows(c.group()) == 2));
		for (Case c : matrix) {
			// round 2: acknowledged on another thread after the method returned and the transaction committed
			kafka.send(c.topic(), c.key(2), "credit 2");
		}
	}

	@AfterAll
	static void stopTheContainers() {
		containers.forEach(ConcurrentMessageListenerContainer::stop);
		containers.clear();
		cases.clear();
		if (kafka != null) {
			kafka.close();
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("matrix")
	void eachRecordTakesEffectOnceAndTheCommittedOffsetReachesTheEnd(Case expected) throws Exception {
		Case c = cases.get(expected.topic());
		await().atMost(Duration.ofSeconds(30)).until(() -> ledger.rows(c.group()) == 3 && kafka.lag(c.group(), c.topic()) == 0);
		assertThat(ledger.doubleCredits(c.group())).isEmpty();
		assertThat(c.calls).as("each key reached the method once").containsOnlyKeys(c.key(0), c.key(1), c.key(2));
		assertThat(c.calls.values()).allSatisfy((calls) -> assertThat(calls).hasValue(1));
		assertThat(c.errors).isEmpty();
	}

	@Test
	void aPartialBatchAcknowledgmentIndexesTheListTheMethodReceivedAndIsPassedOnAfterTheCommit() throws Exception {
		Case c = PARTIAL;
		// acknowledge(1) (b) commits b and the hit after it: the committed offset is the position of c
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.committedOffset(c.group(), c.partition()) == 3);
		assertThat(c.committedInside).as("nothing committed while the transaction was open").containsOnly(-1L);
		assertThat(ledger.rows(c.group())).isEqualTo(4);
		assertThat(c.errors).isEmpty();
	}

	@Test
	void acknowledgingEveryElementByIndexCommitsTheWholeBatchHitsIncluded() throws Exception {
		Case c = EACH;
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(c.group(), c.topic()) == 0);
		assertThat(c.committedInside).containsOnly(-1L);
		assertThat(ledger.rows(c.group())).isEqualTo(4);
		assertThat(ledger.doubleCredits(c.group())).isEmpty();
		assertThat(c.errors).isEmpty();
	}

	@Test
	void aNackRollsTheRecordBackAndItIsDeliveredAgain() throws Exception {
		Case c = NACK;
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(c.group(), c.topic()) == 0);
		assertThat(c.errors).as("nack() was accepted").isEmpty();
		assertThat(c.calls.get(c.key("a"))).as("delivered again after the nack").hasValue(2);
		assertThat(c.calls.get(c.key("b"))).hasValue(1);
		assertThat(ledger.rows(c.group(), c.key("a"))).as("the nacked delivery's write was rolled back").isEqualTo(1);
		assertThat(ledger.rows(c.group())).isEqualTo(2);
	}

	@Test
	void aBatchNackRollsTheBatchBackAndItsListIsDeliveredAgain() throws Exception {
		Case c = BATCH_NACK;
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(c.group(), c.topic()) == 0);
		assertThat(c.errors).as("nack(index) was accepted").isEmpty();
		assertThat(c.calls.get(c.key("a"))).as("delivered again after the nack").hasValue(2);
		assertThat(ledger.rows(c.group())).as("the nacked batch's writes were rolled back").isEqualTo(3);
		assertThat(ledger.doubleCredits(c.group())).isEmpty();
	}

	@Test
	void anAcknowledgmentInATransactionThatRollsBackIsNotPassedOn() throws Exception {
		Case c = ROLLBACK;
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(c.group(), c.topic()) == 0);
		assertThat(c.calls.get(c.key("a"))).hasValue(2);
		assertThat(c.committedInside).as("the retry found the offset not committed").containsExactly(-1L);
		assertThat(ledger.rows(c.group())).isEqualTo(1);
	}

	@Test
	void withAsyncAcksARecordThatFailedAfterAcknowledgingIsRetriedAndTheConsumerGoesOn() throws Exception {
		assumeTrue(ASYNC_ACKS, "asyncAcks is refused on spring-kafka 3");
		Case c = ROLLBACK_ASYNC;
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(c.group(), c.topic()) == 0);
		assertThat(c.calls.get(c.key("a"))).as("each key fails once, then succeeds").hasValue(2);
		assertThat(c.calls.get(c.key("b"))).hasValue(2);
		assertThat(ledger.rows(c.group())).isEqualTo(2);
		assertThat(ledger.doubleCredits(c.group())).isEmpty();
	}

	@Test
	void theAcknowledgmentsOfABatchProcessedRecordByRecordArePassedOnWhenTheBatchCompletes() throws Exception {
		assumeTrue(ASYNC_ACKS, "asyncAcks is refused on spring-kafka 3");
		Case c = ONE_BY_ONE;
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(c.group(), c.topic()) == 0);
		assertThat(c.calls.get(c.key("a"))).as("in the failed batch, then alone").hasValue(2);
		assertThat(c.calls.get(c.key("c"))).hasValue(2);
		assertThat(ledger.rows(c.group())).isEqualTo(3);
		assertThat(ledger.doubleCredits(c.group())).isEmpty();
	}

	private static void startWithRecords(ApplicationContext context, Case c, String... keys) throws Exception {
		cases.put(c.topic(), c);
		for (String key : keys) {
			kafka.send(c.topic(), c.key(key), "credit " + key);
		}
		start(context, c);
	}

	/** Create and start a container for the case, as {@code @KafkaListener} would, for the annotated method. */
	private static void start(ApplicationContext context, Case c) throws Exception {
		Object bean = context.getBean("acknowledgingListeners");
		Method method = (c.batch()) ? AcknowledgingListeners.class.getMethod("onBatch", List.class, Acknowledgment.class)
				: AcknowledgingListeners.class.getMethod("onRecord", ConsumerRecord.class, Acknowledgment.class);
		MethodKafkaListenerEndpoint<Object, Object> endpoint = new MethodKafkaListenerEndpoint<>();
		endpoint.setId(c.group());
		endpoint.setGroupId(c.group());
		endpoint.setTopics(c.topic());
		endpoint.setBean(bean);
		endpoint.setMethod(method);
		endpoint.setBatchListener(c.batch());
		endpoint.setMessageHandlerMethodFactory(
				context.getBean(KafkaListenerAnnotationBeanPostProcessor.class).getMessageHandlerMethodFactory());
		@SuppressWarnings("unchecked")
		ConcurrentKafkaListenerContainerFactory<Object, Object> factory = context
			.getBean(c.batch() ? "acksBatchFactory" : "acksRecordFactory", ConcurrentKafkaListenerContainerFactory.class);
		ConcurrentMessageListenerContainer<Object, Object> container = factory.createListenerContainer(endpoint);
		ContainerProperties properties = container.getContainerProperties();
		properties.setAckMode(c.mode());
		properties.setAsyncAcks(c.asyncAcks());
		properties.setAckTime(100);
		properties.setPollTimeout(300);
		containers.add(container);
		container.start();
	}

	/** What a case's listener does with the acknowledgment. */
	enum Behaviour {

		/**
		 * Key 0: {@code acknowledge()} on the consumer thread; key 1: on another thread while the method waits; key 2:
		 * on another thread after the transaction committed. A batch holding key 2 is acknowledged after its commit,
		 * one holding key 1 on another thread before it, any other on the consumer thread.
		 */
		MATRIX,

		/** A batch: {@code acknowledge(1)}, nothing else. */
		ACKNOWLEDGE_SECOND,

		/** A batch: {@code acknowledge(i)} for each element in turn. */
		ACKNOWLEDGE_EACH,

		/** The first call nacks ({@code nack(sleep)}, or {@code nack(1, sleep)} for a batch), the next acknowledges. */
		NACK_FIRST,

		/** The first call acknowledges and then throws, the next ones acknowledge. */
		ACKNOWLEDGE_THEN_FAIL_FIRST

	}

	/** One case: its container settings, and what its listener saw. */
	record Case(String name, boolean batch, AckMode mode, boolean asyncAcks, Behaviour behaviour,
			Map<String, AtomicInteger> calls, AtomicInteger invocations, List<Long> committedInside,
			List<Throwable> errors) {

		Case(String name, boolean batch, AckMode mode, boolean asyncAcks, Behaviour behaviour) {
			this(name, batch, mode, asyncAcks, behaviour, new ConcurrentHashMap<>(), new AtomicInteger(),
					new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
		}

		String topic() {
			return "acks." + RUN + "." + this.name;
		}

		String group() {
			return RUN + "-acks-" + this.name;
		}

		TopicPartition partition() {
			return new TopicPartition(topic(), 0);
		}

		String key(int index) {
			return key("k" + index);
		}

		String key(String name) {
			return this.name + "-" + name;
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> acksRecordFactory(
				BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = bootConfiguredFactory(beans, consumers);
			factory.getContainerProperties().setAckMode(AckMode.MANUAL_IMMEDIATE);
			return factory;
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> acksBatchFactory(
				BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = bootConfiguredFactory(beans, consumers);
			factory.getContainerProperties().setAckMode(AckMode.MANUAL_IMMEDIATE);
			factory.setBatchListener(true);
			return factory;
		}

		@Bean
		AcknowledgingListeners acknowledgingListeners(ItLedger ledger) {
			return new AcknowledgingListeners(ledger);
		}

	}

	/**
	 * The listeners, null-marked so that spring-kafka passes its no-op {@code Acknowledgment} in the ack modes that
	 * give none.
	 */
	@NullMarked
	static class AcknowledgingListeners {

		private final ItLedger ledger;

		AcknowledgingListeners(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(id = "${it.run}-acks-record", topics = IDLE, containerFactory = "acksRecordFactory",
				autoStartup = "false")
		@IdempotentListener(scope = "${it.run}-acks-record")
		public void onRecord(ConsumerRecord<String, String> record, Acknowledgment acknowledgment) throws Exception {
			Case c = cases.get(record.topic());
			int call = c.calls().computeIfAbsent(record.key(), (k) -> new AtomicInteger()).incrementAndGet();
			String group = c.group();
			this.ledger.credit(group, record.key(), record.value());
			switch (c.behaviour()) {
				case MATRIX -> {
					if (record.key().equals(c.key(0))) {
						acknowledgment.acknowledge();
					}
					else if (record.key().equals(c.key(1))) {
						ackers.submit((Runnable) acknowledgment::acknowledge).get(10, TimeUnit.SECONDS);
					}
					else {
						acknowledgeAfterCommit(c, acknowledgment, List.of(record.key()));
					}
				}
				case NACK_FIRST -> {
					if (call == 1 && record.key().equals(c.key("a"))) {
						nack(c, () -> acknowledgment.nack(Duration.ofMillis(100)));
					}
					else {
						acknowledgment.acknowledge();
					}
				}
				case ACKNOWLEDGE_THEN_FAIL_FIRST -> {
					if (call == 1) {
						acknowledgment.acknowledge();
						throw new IllegalStateException("failing after acknowledging");
					}
					if (record.offset() == 0) {
						c.committedInside().add(kafka.committedOffset(group, c.partition()));
					}
					acknowledgment.acknowledge();
				}
				default -> throw new IllegalStateException(c.behaviour() + " is for batches");
			}
		}

		@KafkaListener(id = "${it.run}-acks-batch", topics = IDLE, containerFactory = "acksBatchFactory",
				autoStartup = "false", batch = "true")
		@IdempotentListener(scope = "${it.run}-acks-batch")
		public void onBatch(List<ConsumerRecord<String, String>> records, Acknowledgment acknowledgment)
				throws Exception {
			Case c = cases.get(records.get(0).topic());
			int call = c.invocations().incrementAndGet();
			String group = c.group();
			List<String> keys = records.stream().map(ConsumerRecord::key).toList();
			for (ConsumerRecord<String, String> record : records) {
				c.calls().computeIfAbsent(record.key(), (k) -> new AtomicInteger()).incrementAndGet();
				this.ledger.credit(group, record.key(), record.value());
			}
			switch (c.behaviour()) {
				case MATRIX -> {
					if (keys.contains(c.key(2))) {
						acknowledgeAfterCommit(c, acknowledgment, keys);
					}
					else if (keys.contains(c.key(1))) {
						ackers.submit((Runnable) acknowledgment::acknowledge).get(10, TimeUnit.SECONDS);
					}
					else {
						acknowledgment.acknowledge();
					}
				}
				case ACKNOWLEDGE_SECOND -> {
					acknowledge(c, () -> acknowledgment.acknowledge(1));
					c.committedInside().add(kafka.committedOffset(group, c.partition()));
				}
				case ACKNOWLEDGE_EACH -> {
					for (int i = 0; i < records.size(); i++) {
						int index = i;
						acknowledge(c, () -> acknowledgment.acknowledge(index));
						c.committedInside().add(kafka.committedOffset(group, c.partition()));
					}
				}
				case NACK_FIRST -> {
					if (call == 1) {
						nack(c, () -> acknowledgment.nack(1, Duration.ofMillis(100)));
					}
					else {
						acknowledgment.acknowledge();
					}
				}
				case ACKNOWLEDGE_THEN_FAIL_FIRST -> {
					acknowledgment.acknowledge();
					if (call == 1) {
						// rolls the batch back; it is then processed record by record, each call acknowledging
						throw new IllegalStateException("failing after acknowledging");
					}
				}
				default -> throw new IllegalStateException(c.behaviour() + " is for single records");
			}
		}

		/** The async-acks pattern: acknowledge on another thread once the method's writes are committed. */
		private void acknowledgeAfterCommit(Case c, Acknowledgment acknowledgment, List<String> keys) {
			ackers.submit(() -> {
				try {
					await().atMost(KafkaTestSupport.timeout())
						.until(() -> keys.stream().allMatch((key) -> this.ledger.rows(c.group(), key) == 1));
					acknowledgment.acknowledge();
				}
				catch (RuntimeException ex) {
					c.errors().add(ex);
				}
			});
		}

		private static void acknowledge(Case c, Runnable acknowledge) {
			try {
				acknowledge.run();
			}
			catch (RuntimeException ex) {
				c.errors().add(ex);
				throw ex;
			}
		}

		private static void nack(Case c, Runnable nack) {
			acknowledge(c, nack);
		}

	}

}
