package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.BatchMessagingMessageConverter;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.bootConfiguredFactory;
import static dev.idempotent.testsupport.BootLine.jsonMessageConverter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The batch-listener shapes services write, on a real broker and a real database: every per-record argument
 * ({@code @Header} lists, wherever they are) cut down to the claimed records, {@code ConsumerRecords}, a record
 * filter, {@code null} payloads, key expressions that throw, and a back-off that follows each attempt's failure.
 * In each, the good records take effect once and only the bad one is dead-lettered, with its reason.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractBatchShapesIT.Listeners.class },
		// the dead-letter publisher sends the original bytes of a record the ErrorHandlingDeserializer could not read
		properties = "spring.kafka.producer.value-serializer=org.springframework.kafka.support.serializer.StringOrBytesSerializer")
@EmbeddedKafka(partitions = 1, topics = { AbstractBatchShapesIT.HEADER_LISTS, AbstractBatchShapesIT.HEADER_FIRST,
		AbstractBatchShapesIT.CONSUMER_RECORDS, AbstractBatchShapesIT.FILTERED,
		AbstractBatchShapesIT.FILTERED_PAYLOADS, AbstractBatchShapesIT.FILTERED_FAILING,
		AbstractBatchShapesIT.FILTERED_FAILING + ".DLT", AbstractBatchShapesIT.FILTERED_AWAY, AbstractBatchShapesIT.NULLS,
		AbstractBatchShapesIT.NULLS + ".DLT", AbstractBatchShapesIT.UNREADABLE, AbstractBatchShapesIT.UNREADABLE + ".DLT",
		AbstractBatchShapesIT.JSON, AbstractBatchShapesIT.JSON + ".DLT", AbstractBatchShapesIT.NULLABLE, AbstractBatchShapesIT.SPEL_BATCH,
		AbstractBatchShapesIT.SPEL_BATCH + ".DLT", AbstractBatchShapesIT.SPEL_SINGLE,
		AbstractBatchShapesIT.SPEL_SINGLE + ".DLT", AbstractBatchShapesIT.BACKOFF_BATCH,
		AbstractBatchShapesIT.BACKOFF_BATCH + ".DLT", AbstractBatchShapesIT.BACKOFF_SINGLE,
		AbstractBatchShapesIT.BACKOFF_SINGLE + ".DLT" })
abstract class AbstractBatchShapesIT {

	static final String HEADER_LISTS = "shapes.header-lists";

	static final String HEADER_FIRST = "shapes.header-first";

	static final String CONSUMER_RECORDS = "shapes.consumer-records";

	static final String FILTERED = "shapes.filtered";

	static final String FILTERED_PAYLOADS = "shapes.filtered-payloads";

	static final String FILTERED_FAILING = "shapes.filtered-failing";

	static final String FILTERED_AWAY = "shapes.filtered-away";

	static final String NULLS = "shapes.nulls";

	static final String UNREADABLE = "shapes.unreadable";

	static final String JSON = "shapes.json";

	static final String NULLABLE = "shapes.nullable";

	static final String SPEL_BATCH = "shapes.spel-batch";

	static final String SPEL_SINGLE = "shapes.spel-single";

	static final String BACKOFF_BATCH = "shapes.backoff-batch";

	static final String BACKOFF_SINGLE = "shapes.backoff-single";

	/** Unique per class and run: the databases keep rows between runs, and both subclasses share a JVM. */
	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	ShapeListeners listeners;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	@Test
	void everyPerRecordHeaderListIsCutDownLikeThePayloads() throws Exception {
		String group = group(HEADER_LISTS);
		List<String> keys = keys(group, 60);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(HEADER_LISTS, interleavedRepeats(keys));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, HEADER_LISTS) == 0);
		}
		assertThat(this.listeners.misaligned()).filteredOn((line) -> line.startsWith(group)).isEmpty();
		assertThat(this.ledger.rows(group)).isEqualTo(60);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(payloadsMatchKeys(group)).isTrue();
	}

	@Test
	void aHeaderListBeforeThePayloadsIsNotTakenForTheBatch() throws Exception {
		String group = group(HEADER_FIRST);
		List<String> keys = keys(group, 60);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(HEADER_FIRST, interleavedRepeats(keys));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, HEADER_FIRST) == 0);
		}
		assertThat(this.listeners.misaligned()).filteredOn((line) -> line.startsWith(group)).isEmpty();
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.rows(group)).isEqualTo(60);
	}

	@Test
	void consumerRecordsReceiveOnlyNewlyClaimedRecords() throws Exception {
		String group = group(CONSUMER_RECORDS);
		List<String> keys = keys(group, 60);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(CONSUMER_RECORDS, interleavedRepeats(keys));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, CONSUMER_RECORDS) == 0);
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.rows(group)).isEqualTo(60);
	}

	@Test
	void aRecordFilterOnABatchOfRecordsKeepsRecordsAndKeysTogether() throws Exception {
		String group = group(FILTERED);
		List<String> keys = keys(group, 40);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(FILTERED, keys.subList(0, 20));
			for (int i = 0; i < 5; i++) {
				kafka.send(FILTERED, group + "-skipped-" + i, "skip-me");
			}
			kafka.sendAll(FILTERED, interleavedRepeats(keys.subList(20, 40)));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, FILTERED) == 0);
		}
		assertThat(this.ledger.rows(group)).isEqualTo(40);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(payloadsMatchKeys(group)).isTrue();
	}

	@Test
	void aRecordFilterOnABatchOfPayloadsKeepsPayloadsAndKeysTogether() throws Exception {
		String group = group(FILTERED_PAYLOADS);
		List<String> keys = keys(group, 40);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(FILTERED_PAYLOADS, keys.subList(0, 20));
			for (int i = 0; i < 5; i++) {
				kafka.send(FILTERED_PAYLOADS, group + "-skipped-" + i, "skip-me");
			}
			kafka.sendAll(FILTERED_PAYLOADS, interleavedRepeats(keys.subList(20, 40)));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, FILTERED_PAYLOADS) == 0);
		}
		assertThat(this.listeners.misaligned()).filteredOn((line) -> line.startsWith(group)).isEmpty();
		assertThat(this.ledger.rows(group)).isEqualTo(40);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(payloadsMatchKeys(group)).isTrue();
	}

	@Test
	void aFailingRecordBehindARecordFilterIsDeadLetteredAloneNotTheRecordAtItsFilteredIndex() throws Exception {
		String group = group(FILTERED_FAILING);
		List<String> keys = keys(group, 10);
		String bad = group + "-bad";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(FILTERED_FAILING)) {
			// five good records, three the filter drops, the bad one, five good ones: once the error handler seeks back
			// to the records before the bad one, the bad one is at index 0 of the filtered list, 3 of the poll
			List<String> sent = new ArrayList<>(keys.subList(0, 5));
			for (int i = 0; i < 3; i++) {
				sent.add(group + "-skipped-" + i);
			}
			sent.add(bad);
			sent.addAll(keys.subList(5, 10));
			kafka.sendAll(FILTERED_FAILING, sent, (key) -> key.contains("-skipped-") ? "skip-me" : "payload-" + key);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, FILTERED_FAILING) == 0);
			dead.addAll(awaitDeadLetters(dlt, 0));
			assertThat(dead).extracting(ConsumerRecord::key).containsExactly(bad);
		}
		assertThat(this.ledger.rows(group)).isEqualTo(10);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	@Test
	void aPollTheRecordFilterDroppedWholeIsAcknowledgedWithManualAcks() throws Exception {
		String group = group(FILTERED_AWAY);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(FILTERED_AWAY, keys(group, 5), (key) -> "skip-me");
			await().atMost(Duration.ofSeconds(15)).until(() -> kafka.lag(group, FILTERED_AWAY) == 0);
		}
		assertThat(this.ledger.rows(group)).isZero();
	}

	@Test
	void aNullPayloadIsDeadLetteredAloneAndTheOtherRecordsTakeEffectOnce() throws Exception {
		String group = group(NULLS);
		List<String> keys = keys(group, 30);
		String tombstone = group + "-tombstone";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(NULLS)) {
			kafka.sendAll(NULLS, keys.subList(0, 15));
			kafka.send(NULLS, tombstone, null);
			kafka.sendAll(NULLS, keys.subList(15, 30));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, NULLS) == 0);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(key(dead.get(0))).isEqualTo(tombstone);
			assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("NULL_PAYLOAD");
		}
		assertThat(this.ledger.rows(group)).isEqualTo(30);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	@Test
	void aRecordTheErrorHandlingDeserializerCouldNotReadIsDeadLetteredAloneWithItsBytes() throws Exception {
		String group = group(UNREADABLE);
		String bad = group + "-unreadable";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(UNREADABLE)) {
			for (int i = 0; i < 20; i++) {
				if (i == 10) {
					kafka.send(UNREADABLE, bad, "not a long");
				}
				kafka.send(UNREADABLE, group + "-order-" + i, String.format("%08d", i));
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, UNREADABLE) == 0);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(key(dead.get(0))).isEqualTo(bad);
			assertThat(dead.get(0).value()).isEqualTo("not a long");
			assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("NULL_PAYLOAD");
		}
		assertThat(this.ledger.rows(group)).isEqualTo(20);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	@Test
	void aRecordTheJsonConverterCouldNotConvertIsDeadLetteredAlone() throws Exception {
		String group = group(JSON);
		String bad = group + "-not-json";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(JSON)) {
			for (int i = 0; i < 20; i++) {
				if (i == 10) {
					kafka.send(JSON, bad, "not json");
				}
				kafka.send(JSON, group + "-order-" + i, "{\"id\":\"" + group + "-order-" + i + "\"}");
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, JSON) == 0);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(key(dead.get(0))).isEqualTo(bad);
			assertThat(dead.get(0).value()).isEqualTo("not json");
			assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("NULL_PAYLOAD");
		}
		assertThat(this.ledger.rows(group)).isEqualTo(20);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	@Test
	void aMethodThatAcceptsNullPayloadsReceivesThem() throws Exception {
		String group = group(NULLABLE);
		List<String> keys = keys(group, 20);
		String tombstone = group + "-tombstone";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.sendAll(NULLABLE, keys.subList(0, 10));
			kafka.send(NULLABLE, tombstone, null);
			kafka.sendAll(NULLABLE, keys.subList(10, 20));
			kafka.send(NULLABLE, tombstone, null);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, NULLABLE) == 0);
		}
		assertThat(this.ledger.rows(group)).isEqualTo(21);
		assertThat(this.ledger.rows(group, tombstone)).isOne();
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	@Test
	void aKeyExpressionThatThrowsInABatchRejectsThatRecordAlone() throws Exception {
		String group = group(SPEL_BATCH);
		List<String> keys = keys(group, 30);
		String bad = group + "-short";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(SPEL_BATCH)) {
			kafka.sendAll(SPEL_BATCH, keys.subList(0, 15));
			kafka.send(SPEL_BATCH, bad, "short");
			kafka.sendAll(SPEL_BATCH, keys.subList(15, 30));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, SPEL_BATCH) == 0);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(key(dead.get(0))).isEqualTo(bad);
			assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("EXPRESSION_FAILED");
		}
		assertThat(this.ledger.rows(group)).isEqualTo(30);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	@Test
	void aKeyExpressionThatThrowsOnASingleRecordIsARejectedKey() throws Exception {
		String group = group(SPEL_SINGLE);
		String bad = group + "-short";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(SPEL_SINGLE)) {
			kafka.send(SPEL_SINGLE, bad, "short");
			kafka.sendAll(SPEL_SINGLE, keys(group, 3));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, SPEL_SINGLE) == 0);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("EXPRESSION_FAILED");
		}
		assertThat(this.ledger.rows(group)).isEqualTo(3);
	}

	@Test
	void aBatchRecordThatFailsTransientlyThenForGoodIsDeadLettered() throws Exception {
		String group = group(BACKOFF_BATCH);
		List<String> keys = keys(group, 20);
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(BACKOFF_BATCH)) {
			kafka.sendAll(BACKOFF_BATCH, keys);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(key(dead.get(0))).isEqualTo(keys.get(10));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, BACKOFF_BATCH) == 0);
		}
		assertThat(this.listeners.attempts().get(keys.get(10)).get()).isGreaterThan(Listeners.TRANSIENT_ATTEMPTS);
		assertThat(this.ledger.rows(group)).isEqualTo(19);
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.jdbc.queryForObject("SELECT status FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?",
				Integer.class, group, keys.get(10))).isEqualTo(2);
	}

	@Test
	void aSingleRecordThatFailsTransientlyThenForGoodIsDeadLettered() throws Exception {
		String group = group(BACKOFF_SINGLE);
		List<String> keys = keys(group, 3);
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> dlt = deadLetters(BACKOFF_SINGLE)) {
			kafka.sendAll(BACKOFF_SINGLE, keys);
			List<ConsumerRecord<String, String>> dead = awaitDeadLetters(dlt, 1);
			assertThat(dead).hasSize(1);
			assertThat(key(dead.get(0))).isEqualTo(keys.get(1));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, BACKOFF_SINGLE) == 0);
		}
		assertThat(this.ledger.rows(group)).isEqualTo(2);
	}

	/** The keys once each, then a second time mixed with new ones, so that batches hold hits between new records. */
	private static List<String> interleavedRepeats(List<String> keys) {
		int half = keys.size() / 2;
		List<String> sent = new ArrayList<>(keys.subList(0, half));
		for (int i = half; i < keys.size(); i++) {
			sent.add(keys.get(i - half));
			sent.add(keys.get(i));
		}
		return sent;
	}

	private boolean payloadsMatchKeys(String group) {
		Integer wrong = this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM it_ledger WHERE grp = ? AND payload <> CONCAT('payload-', idem_key)", Integer.class,
				group);
		return wrong != null && wrong == 0;
	}

	private KafkaTestSupport kafka() {
		return new KafkaTestSupport(this.broker.getBrokersAsString());
	}

	private Consumer<String, String> deadLetters(String topic) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(this.broker.getBrokersAsString(), RUN + "-dlt-" + topic);
		props.put("auto.offset.reset", "earliest");
		Consumer<String, String> consumer = new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(),
				new StringDeserializer()).createConsumer();
		consumer.subscribe(List.of(topic + ".DLT"));
		return consumer;
	}

	/** Wait until at least {@code count} dead letters arrived, then for any more in a short extra poll. */
	private static List<ConsumerRecord<String, String>> awaitDeadLetters(Consumer<String, String> dlt, int count) {
		List<ConsumerRecord<String, String>> dead = new ArrayList<>();
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
			return dead.size() >= count;
		});
		KafkaTestUtils.getRecords(dlt, Duration.ofMillis(500)).forEach(dead::add);
		return dead;
	}

	private static String key(ConsumerRecord<String, String> record) {
		return header(record, IdempotencyHeaders.KEY);
	}

	private static String header(ConsumerRecord<String, String> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
	}

	static String group(String topic) {
		return RUN + "-" + topic.substring(topic.indexOf('.') + 1);
	}

	private static List<String> keys(String group, int count) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			keys.add(group + "-order-" + i);
		}
		return keys;
	}

	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class Listeners {

		static final int TRANSIENT_ATTEMPTS = 4;

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> filteredBatchFactory(
				BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = bootConfiguredFactory(beans, consumers);
			factory.setBatchListener(true);
			factory.setRecordFilterStrategy((record) -> "skip-me".equals(record.value()));
			return factory;
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> filteredManualBatchFactory(
				BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = filteredBatchFactory(beans, consumers);
			factory.getContainerProperties().setAckMode(ContainerProperties.AckMode.MANUAL);
			return factory;
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> jsonBatchFactory(
				BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = bootConfiguredFactory(beans, consumers);
			factory.setBatchListener(true);
			factory.setBatchMessageConverter(new BatchMessagingMessageConverter(jsonMessageConverter()));
			return factory;
		}

		@Bean
		ShapeListeners shapeListeners(ItLedger ledger) {
			return new ShapeListeners(ledger);
		}

	}

	/** The payload of the JSON listener. */
	public record Order(String id) {
	}

	static class ShapeListeners {

		/** Elements of different per-record lists that did not line up in one call. */
		final List<String> misaligned = new CopyOnWriteArrayList<>();

		/** Calls per key of the listeners that fail on purpose. */
		final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

		private final ItLedger ledger;

		ShapeListeners(ItLedger ledger) {
			this.ledger = ledger;
		}

		/** Read through the bean's proxy: its own fields are not the target's. */
		public List<String> misaligned() {
			return this.misaligned;
		}

		public Map<String, AtomicInteger> attempts() {
			return this.attempts;
		}

		@KafkaListener(topics = HEADER_LISTS, groupId = "${it.run}-header-lists", containerFactory = "batchFactory",
				properties = "max.poll.records=25")
		@IdempotentListener(key = "#payload.substring(8)")
		public void onHeaderLists(List<String> payloads, @Header(KafkaHeaders.RECEIVED_KEY) List<String> keys,
				@Header(KafkaHeaders.OFFSET) List<Long> offsets) {
			String group = group(HEADER_LISTS);
			if (payloads.size() != keys.size() || payloads.size() != offsets.size()) {
				this.misaligned.add(group + ": " + payloads.size() + " payloads, " + keys.size() + " keys, " + offsets.size()
						+ " offsets");
				return;
			}
			for (int i = 0; i < payloads.size(); i++) {
				if (!payloads.get(i).equals("payload-" + keys.get(i))) {
					this.misaligned.add(group + ": payload " + payloads.get(i) + " with key " + keys.get(i));
				}
				this.ledger.credit(group, keys.get(i), payloads.get(i));
			}
		}

		@KafkaListener(topics = HEADER_FIRST, groupId = "${it.run}-header-first", containerFactory = "batchFactory",
				properties = "max.poll.records=25")
		@IdempotentListener
		public void onHeaderFirst(@Header(KafkaHeaders.RECEIVED_KEY) List<String> keys, List<String> payloads) {
			String group = group(HEADER_FIRST);
			if (payloads.size() != keys.size()) {
				this.misaligned.add(group + ": " + payloads.size() + " payloads, " + keys.size() + " keys");
			}
			payloads.forEach((payload) -> this.ledger.credit(group, payload.substring(8), payload));
		}

		@KafkaListener(topics = CONSUMER_RECORDS, groupId = "${it.run}-consumer-records", containerFactory = "batchFactory",
				properties = "max.poll.records=25")
		@IdempotentListener
		public void onConsumerRecords(ConsumerRecords<String, String> records) {
			String group = group(CONSUMER_RECORDS);
			records.forEach((record) -> this.ledger.credit(group, record.key(), record.value()));
		}

		@KafkaListener(topics = FILTERED, groupId = "${it.run}-filtered", containerFactory = "filteredBatchFactory",
				properties = "max.poll.records=25")
		@IdempotentListener
		public void onFiltered(List<ConsumerRecord<String, String>> records) {
			String group = group(FILTERED);
			records.forEach((record) -> this.ledger.credit(group, record.key(), record.value()));
		}

		@KafkaListener(topics = FILTERED_PAYLOADS, groupId = "${it.run}-filtered-payloads",
				containerFactory = "filteredBatchFactory", properties = "max.poll.records=25")
		@IdempotentListener(key = "#payload.substring(8)")
		public void onFilteredPayloads(List<String> payloads, @Header(KafkaHeaders.RECEIVED_KEY) List<String> keys) {
			String group = group(FILTERED_PAYLOADS);
			for (int i = 0; i < payloads.size(); i++) {
				if (!payloads.get(i).equals("payload-" + keys.get(i))) {
					this.misaligned.add(group + ": payload " + payloads.get(i) + " with key " + keys.get(i));
				}
				this.ledger.credit(group, keys.get(i), payloads.get(i));
			}
		}

		@KafkaListener(topics = FILTERED_FAILING, groupId = "${it.run}-filtered-failing",
				containerFactory = "filteredBatchFactory", properties = "max.poll.records=50")
		@IdempotentListener
		public void onFilteredFailing(List<ConsumerRecord<String, String>> records) {
			String group = group(FILTERED_FAILING);
			for (ConsumerRecord<String, String> record : records) {
				if (record.key().endsWith("-bad")) {
					throw new IllegalStateException("cannot credit " + record.key());
				}
				this.ledger.credit(group, record.key(), record.value());
			}
		}

		@KafkaListener(topics = FILTERED_AWAY, groupId = "${it.run}-filtered-away",
				containerFactory = "filteredManualBatchFactory", properties = "max.poll.records=50")
		@IdempotentListener
		public void onFilteredAway(List<ConsumerRecord<String, String>> records, Acknowledgment acknowledgment) {
			records.forEach((record) -> this.ledger.credit(group(FILTERED_AWAY), record.key(), record.value()));
			acknowledgment.acknowledge();
		}

		@KafkaListener(topics = NULLS, groupId = "${it.run}-nulls", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener
		public void onNulls(List<String> payloads) {
			String group = group(NULLS);
			payloads.forEach((payload) -> this.ledger.credit(group, payload.substring(8), payload));
		}

		@KafkaListener(topics = UNREADABLE, groupId = "${it.run}-unreadable", containerFactory = "batchFactory",
				properties = { "max.poll.records=50",
						"value.deserializer=org.springframework.kafka.support.serializer.ErrorHandlingDeserializer",
						"spring.deserializer.value.delegate.class=org.apache.kafka.common.serialization.LongDeserializer" })
		@IdempotentListener
		public void onUnreadable(List<Long> values, @Header(KafkaHeaders.RECEIVED_KEY) List<String> keys) {
			String group = group(UNREADABLE);
			for (int i = 0; i < values.size(); i++) {
				this.ledger.credit(group, keys.get(i), String.valueOf(values.get(i)));
			}
		}

		@KafkaListener(topics = JSON, groupId = "${it.run}-json", containerFactory = "jsonBatchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener(key = "#payload.id()")
		public void onJson(List<Order> orders) {
			orders.forEach((order) -> this.ledger.credit(group(JSON), order.id(), "payload-" + order.id()));
		}

		@KafkaListener(topics = NULLABLE, groupId = "${it.run}-nullable", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener
		public void onNullable(List<@Nullable String> payloads,
				@Header(KafkaHeaders.RECEIVED_KEY) List<String> keys) {
			String group = group(NULLABLE);
			for (int i = 0; i < payloads.size(); i++) {
				String payload = payloads.get(i);
				this.ledger.credit(group, keys.get(i), (payload != null) ? payload : "<tombstone>");
			}
		}

		@KafkaListener(topics = SPEL_BATCH, groupId = "${it.run}-spel-batch", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener(key = "#payload.substring(8)")
		public void onSpelBatch(List<String> payloads) {
			String group = group(SPEL_BATCH);
			payloads.forEach((payload) -> this.ledger.credit(group, payload.substring(8), payload));
		}

		@KafkaListener(topics = SPEL_SINGLE, groupId = "${it.run}-spel-single")
		@IdempotentListener(key = "#payload.substring(8)")
		public void onSpelSingle(String payload) {
			this.ledger.credit(group(SPEL_SINGLE), payload.substring(8), payload);
		}

		@KafkaListener(topics = BACKOFF_BATCH, groupId = "${it.run}-backoff-batch", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener
		public void onBackOffBatch(List<ConsumerRecord<String, String>> records) {
			String group = group(BACKOFF_BATCH);
			for (ConsumerRecord<String, String> record : records) {
				if (record.key().endsWith("-order-10")) {
					int attempt = this.attempts.computeIfAbsent(record.key(), (key) -> new AtomicInteger()).incrementAndGet();
					if (attempt <= Listeners.TRANSIENT_ATTEMPTS) {
						throw new TransientDataAccessResourceException("the database is down (attempt " + attempt + ")");
					}
					throw new IllegalStateException("cannot credit " + record.key());
				}
				this.ledger.credit(group, record.key(), record.value());
			}
		}

		@KafkaListener(topics = BACKOFF_SINGLE, groupId = "${it.run}-backoff-single")
		@IdempotentListener
		public void onBackOffSingle(ConsumerRecord<String, String> record) {
			if (record.key().endsWith("-order-1")) {
				int attempt = this.attempts.computeIfAbsent(record.key(), (key) -> new AtomicInteger()).incrementAndGet();
				if (attempt <= Listeners.TRANSIENT_ATTEMPTS) {
					throw new IllegalStateException("the ledger is unavailable",
							new TransientDataAccessResourceException("the database is down (attempt " + attempt + ")"));
				}
				throw new IllegalStateException("cannot credit " + record.key());
			}
			this.ledger.credit(group(BACKOFF_SINGLE), record.key(), record.value());
		}

	}

}
