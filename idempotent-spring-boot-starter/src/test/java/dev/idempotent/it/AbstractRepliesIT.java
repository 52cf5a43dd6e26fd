package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.claim.ClaimMode;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.requestreply.KafkaReplyTimeoutException;
import org.springframework.kafka.requestreply.ReplyingKafkaTemplate;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

import static dev.idempotent.testsupport.BootLine.JSON_SERIALIZER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @SendTo} replies stored with their claims, end to end on a real broker: a request whose first
 * reply was lost gets, on its {@code ReplyingKafkaTemplate} retry (a new request with a correlation id of its own),
 * the reply stored by the first processing, and the method runs once; a plain {@code @SendTo} listener whose request
 * is redelivered sends the same reply again, with the same idempotency key header; a reply whose send fails fails its
 * record, whose retry (a hit) sends the stored reply.
 */
@EmbeddedKafka(partitions = 1, brokerProperties = "auto.create.topics.enable=false")
abstract class AbstractRepliesIT {

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String TABLE = "replies_" + RUN.replace('-', '_');

	abstract ItDatabase database();

	@AfterEach
	void dropTable() {
		TestDatabases.drop(database().dataSource(), TABLE);
	}

	private ApplicationContextRunner runner(EmbeddedKafkaBroker broker, String group, Class<?> listener) {
		return new ApplicationContextRunner().withUserConfiguration(ItApplication.class, listener)
			.withPropertyValues(database().properties().toArray(String[]::new))
			.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest", "spring.flyway.enabled=false",
					"idempotent.table-name=" + TABLE, "idempotent.jdbc.initialize-schema=always",
					"spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "it.group=" + group,
					"spring.kafka.producer.value-serializer=" + JSON_SERIALIZER.getName());
	}

	@Test
	void aRequestWhoseFirstReplyWasLostGetsTheStoredReplyOnItsRetry(EmbeddedKafkaBroker broker) throws Exception {
		String group = RUN + "-rpc";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, group + ".requests", group + ".replies");
			runner(broker, group, ReceiptListener.class).run((context) -> {
				assertThat(context).hasNotFailed();
				ReceiptListener.Listener listener = context.getBean(ReceiptListener.Listener.class);
				ReplyingKafkaTemplate<String, String, String> requester = requester(broker, group);
				try {
					ProducerRecord<String, String> first = request(group, "order-1", "credit 10");
					assertThatThrownBy(() -> requester.sendAndReceive(first, Duration.ofSeconds(3)).get(30,
							TimeUnit.SECONDS))
						.as("the first reply does not reach the requester")
						.isInstanceOf(ExecutionException.class)
						.hasCauseInstanceOf(KafkaReplyTimeoutException.class);
					listener.release().countDown(); // the first reply is sent now, after the requester gave up

					// the retry's record key differs (the idempotency key header is the same): the reply takes it
					ProducerRecord<String, String> retry = request(group, "order-1", "credit 10 (retry)");
					retry = new ProducerRecord<>(retry.topic(), null, "order-1/retry", retry.value(), retry.headers());
					ConsumerRecord<String, String> reply = requester.sendAndReceive(retry, Duration.ofSeconds(30))
						.get(60, TimeUnit.SECONDS);
					assertThat(reply.value()).isEqualTo("{\"orderId\":\"order-1\",\"request\":\"credit 10\",\"call\":1}");
					assertThat(reply.key()).as("the key of the request at hand, as spring-kafka sets it")
						.isEqualTo("order-1/retry");
					assertThat(reply.headers().lastHeader("__TypeId__")).as("the serializer's type header is stored")
						.isNotNull();
					assertThat(listener.calls()).hasValue(1);
					assertThat(context.getBean(ItLedger.class).rows(group, "order-1")).isOne();
					MeterRegistry meters = context.getBean(MeterRegistry.class);
					assertThat(ClaimMeters.hits(meters, group)).isOne();
					assertThat(counter(meters, OutputMeters.STORED, group)).isOne();
					assertThat(counter(meters, OutputMeters.REPLAYED, group)).isOne();
				}
				finally {
					requester.stop();
				}
			});
		}
	}

	@Test
	void aRedeliveredRequestSendsTheSameReplyAgain(EmbeddedKafkaBroker broker) throws Exception {
		redeliveredRequestGetsTheSameReply(broker, RUN + "-forward", ForwardingListener.class);
	}

	/** LEASED mode: the reply is stored by the completion step, with SUCCEEDED. */
	@Test
	void aLeasedListenersRedeliveredRequestSendsTheSameReplyAgain(EmbeddedKafkaBroker broker) throws Exception {
		redeliveredRequestGetsTheSameReply(broker, RUN + "-leased", LeasedForwardingListener.class);
	}

	/**
	 * {@code @SendTo("!{...}")}: spring-kafka evaluates the expression for each reply, whatever the request's reply topic
	 * header says; the hit's reply carries the stored bytes all the same.
	 */
	@Test
	void aReplyToARuntimeExpressionIgnoresTheRequestsReplyTopicHeader(EmbeddedKafkaBroker broker) throws Exception {
		String group = RUN + "-expression";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, group + ".elsewhere");
		}
		redeliveredRequestGetsTheSameReply(broker, group, ExpressionListener.class, group + ".elsewhere");
	}

	private void redeliveredRequestGetsTheSameReply(EmbeddedKafkaBroker broker, String group, Class<?> listener)
			throws Exception {
		redeliveredRequestGetsTheSameReply(broker, group, listener, null);
	}

	private void redeliveredRequestGetsTheSameReply(EmbeddedKafkaBroker broker, String group, Class<?> listener,
			@Nullable String replyTopicHeader) throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> replies = consumer(broker, group + "-reader")) {
			kafka.createTopics(1, group + ".requests", group + ".replies");
			kafka.send(group + ".requests", "request-1", "hello", replyTopicHeader);
			runner(broker, group, Forwarding.class).withBean(listener)
				.withPropertyValues("spring.kafka.producer.properties.spring.json.add.type.headers=false")
				.run((context) -> {
				assertThat(context).hasNotFailed();
				replies.subscribe(List.of(group + ".replies"));
				List<ConsumerRecord<String, String>> received = new ArrayList<>();
				await().atMost(KafkaTestSupport.timeout()).until(() -> {
					KafkaTestUtils.getRecords(replies, Duration.ofMillis(200)).forEach(received::add);
					return !received.isEmpty();
				});
				kafka.send(group + ".requests", "request-1", "hello again", replyTopicHeader);
				await().atMost(KafkaTestSupport.timeout()).until(() -> {
					KafkaTestUtils.getRecords(replies, Duration.ofMillis(200)).forEach(received::add);
					return received.size() >= 2;
				});
				assertThat(received).hasSize(2)
					.extracting(ConsumerRecord::value)
					.containsExactly("\"reply to hello\"", "\"reply to hello\"");
				assertThat(keyHeader(received.get(1))).isNotNull().isEqualTo(keyHeader(received.get(0)));
				assertThat(received).as("the stored reply was serialized as configured: no type header")
					.allSatisfy((reply) -> assertThat(reply.headers().lastHeader("__TypeId__")).isNull());
				assertThat(context.getBean(Forwarder.class).calls()).hasValue(1);
				assertThat(context.getBean(ItLedger.class).rows(group, "request-1")).isOne();
				await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, group + ".requests") == 0);
			});
		}
	}

	/**
	 * The reply topic does not exist yet (the broker creates none on its own): the reply's send fails, which
	 * spring-kafka drops; the starter fails the record instead, and once the topic exists a retry, a hit, sends the
	 * stored reply. Before the fix the offset was committed and no reply ever came.
	 */
	@Test
	void aReplyWhoseSendFailedFailsItsRecordAndTheRetrySendsTheStoredReply(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = RUN + "-failing";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> replies = consumer(broker, group + "-reader");
				LogCapture log = new LogCapture("dev.idempotent.capture.CapturingProducer")) {
			kafka.createTopics(1, group + ".requests");
			kafka.send(group + ".requests", "request-1", "hello");
			runner(broker, group, Forwarding.class).withBean(ForwardingListener.class)
				.withPropertyValues("spring.kafka.producer.properties.max.block.ms=1000")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					MeterRegistry meters = context.getBean(MeterRegistry.class);
					Forwarder forwarder = context.getBean(Forwarder.class);
					await().atMost(KafkaTestSupport.timeout()).until(() -> forwarder.calls().get() == 1);
					await().atMost(KafkaTestSupport.timeout())
						.until(() -> log.messages(Level.ERROR).stream().anyMatch((line) -> line.contains("reply to")));
					assertThat(kafka.lag(group, group + ".requests")).as("the failed reply's offset").isOne();
					kafka.createTopics(1, group + ".replies");
					replies.subscribe(List.of(group + ".replies"));
					List<ConsumerRecord<String, String>> received = new ArrayList<>();
					await().atMost(KafkaTestSupport.timeout()).until(() -> {
						KafkaTestUtils.getRecords(replies, Duration.ofMillis(200)).forEach(received::add);
						return !received.isEmpty();
					});
					assertThat(received.get(0).value()).isEqualTo("\"reply to hello\"");
					await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, group + ".requests") == 0);
					assertThat(forwarder.calls()).as("the retries were hits").hasValue(1);
					assertThat(ClaimMeters.hits(meters, group)).isPositive();
					assertThat(context.getBean(ItLedger.class).rows(group, "request-1")).isOne();
				});
		}
	}

	private static ProducerRecord<String, String> request(String group, String key, String payload) {
		ProducerRecord<String, String> record = new ProducerRecord<>(group + ".requests", key, payload);
		record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
		return record;
	}

	private static ReplyingKafkaTemplate<String, String, String> requester(EmbeddedKafkaBroker broker, String group)
			throws InterruptedException {
		Map<String, Object> consumerProps = KafkaTestSupport.consumerProps(broker.getBrokersAsString(),
				group + "-requester");
		consumerProps.put("auto.offset.reset", "earliest");
		ContainerProperties properties = new ContainerProperties(group + ".replies");
		ConcurrentMessageListenerContainer<String, String> container = new ConcurrentMessageListenerContainer<>(
				new DefaultKafkaConsumerFactory<>(consumerProps, new StringDeserializer(), new StringDeserializer()),
				properties);
		ReplyingKafkaTemplate<String, String, String> requester = new ReplyingKafkaTemplate<>(
				new DefaultKafkaProducerFactory<>(KafkaTestUtils.producerProps(broker.getBrokersAsString()),
						new StringSerializer(), new StringSerializer()),
				container);
		requester.setSharedReplyTopic(false);
		requester.start();
		assertThat(requester.waitForAssignment(KafkaTestSupport.timeout())).isTrue();
		return requester;
	}

	private static String keyHeader(ConsumerRecord<String, String> record) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(IdempotencyHeaders.KEY);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	private static long counter(MeterRegistry meters, String name, String scope) {
		var counter = meters.find(name).tag("scope", scope).counter();
		return (counter != null) ? (long) counter.count() : 0;
	}

	private static Consumer<String, String> consumer(EmbeddedKafkaBroker broker, String group) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(broker.getBrokersAsString(), group);
		props.put("auto.offset.reset", "earliest");
		return new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer())
			.createConsumer();
	}

	/** What the request/reply listener returns: a record, serialized as JSON with a type header. */
	record Receipt(String orderId, String request, int call) {
	}

	@Configuration(proxyBeanMethods = false)
	static class ReceiptListener {

		@Bean
		Listener receiptListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listener(ledger, group);
		}

		static class Listener {

			private final AtomicInteger calls = new AtomicInteger();

			private final CountDownLatch release = new CountDownLatch(1);

			private final ItLedger ledger;

			private final String group;

			Listener(ItLedger ledger, String group) {
				this.ledger = ledger;
				this.group = group;
			}

			/** Replies to the request's reply topic header; the first call holds its reply until released. */
			@KafkaListener(topics = "${it.group}.requests", groupId = "${it.group}")
			@SendTo
			@IdempotentListener
			public Receipt onRequest(String payload, @Header(IdempotencyHeaders.KEY) String key) throws Exception {
				this.ledger.credit(this.group, key, payload);
				int call = this.calls.incrementAndGet();
				if (call == 1 && !this.release.await(60, TimeUnit.SECONDS)) {
					throw new IllegalStateException("not released");
				}
				return new Receipt(key, payload, call);
			}

			public AtomicInteger calls() {
				return this.calls;
			}

			public CountDownLatch release() {
				return this.release;
			}

		}

	}

	/** The work of the forwarding listeners: a credit, and a reply; counts its calls. */
	static class Forwarder {

		private final AtomicInteger calls = new AtomicInteger();

		private final ItLedger ledger;

		private final String group;

		Forwarder(ItLedger ledger, String group) {
			this.ledger = ledger;
			this.group = group;
		}

		String reply(String payload, String key) {
			this.ledger.credit(this.group, key, payload);
			this.calls.incrementAndGet();
			return "reply to " + payload;
		}

		AtomicInteger calls() {
			return this.calls;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Forwarding {

		@Bean
		Forwarder forwarder(ItLedger ledger, @Value("${it.group}") String group) {
			return new Forwarder(ledger, group);
		}

	}

	static class ForwardingListener {

		private final Forwarder forwarder;

		ForwardingListener(Forwarder forwarder) {
			this.forwarder = forwarder;
		}

		@KafkaListener(topics = "${it.group}.requests", groupId = "${it.group}")
		@SendTo("${it.group}.replies")
		@IdempotentListener
		public String onRequest(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			return this.forwarder.reply(payload, key);
		}

	}

	static class ExpressionListener {

		private final Forwarder forwarder;

		ExpressionListener(Forwarder forwarder) {
			this.forwarder = forwarder;
		}

		@KafkaListener(topics = "${it.group}.requests", groupId = "${it.group}")
		@SendTo("!{'${it.group}' + '.replies'}")
		@IdempotentListener
		public String onRequest(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			return this.forwarder.reply(payload, key);
		}

	}

	static class LeasedForwardingListener {

		private final Forwarder forwarder;

		LeasedForwardingListener(Forwarder forwarder) {
			this.forwarder = forwarder;
		}

		@KafkaListener(topics = "${it.group}.requests", groupId = "${it.group}")
		@SendTo("${it.group}.replies")
		@IdempotentListener(mode = ClaimMode.LEASED)
		public String onRequest(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			return this.forwarder.reply(payload, key);
		}

	}

}
