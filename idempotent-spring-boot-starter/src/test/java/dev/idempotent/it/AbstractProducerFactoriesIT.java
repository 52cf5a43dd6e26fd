package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application with two producer factories, the primary one and one of its own settings (here: a producer
 * interceptor; in services, often another cluster), whose listener sends its output through the second: a hit sends
 * the stored output again through the factory that sent it first, not through the primary one.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractProducerFactoriesIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = { AbstractProducerFactoriesIT.IN, AbstractProducerFactoriesIT.AUDIT })
abstract class AbstractProducerFactoriesIT {

	static final String IN = "factories.payments";

	static final String AUDIT = "factories.audit";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	ItLedger ledger;

	abstract ItDatabase database();

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	@Test
	void aHitSendsTheStoredOutputAgainThroughTheFactoryThatSentIt() throws Exception {
		String key = RUN + "-" + database() + "-payment-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader audit = new DeadLetterReader(this.broker.getBrokersAsString(), AUDIT)) {
			kafka.send(IN, key, "credit");
			await().atMost(KafkaTestSupport.timeout()).until(() -> audited(audit, key).size() == 1);
			assertThat(AuditInterceptor.sent(key)).isOne();

			kafka.send(IN, key, "credit");

			await().atMost(KafkaTestSupport.timeout()).until(() -> audited(audit, key).size() == 2);
			assertThat(AuditInterceptor.sent(key)).as("sent again through the audit producer factory").isEqualTo(2);
			assertThat(this.ledger.rows(RUN, key)).as("the hit did not run the method").isOne();
			List<ConsumerRecord<String, String>> sent = audited(audit, key);
			assertThat(sent.get(1).headers().lastHeader(IdempotencyHeaders.KEY).value())
				.isEqualTo(sent.get(0).headers().lastHeader(IdempotencyHeaders.KEY).value());
			assertThat(sent.get(1).headers().headers("idempotent.producer-factory"))
				.as("which factory sent it is stored, not sent").isEmpty();
		}
	}

	private static List<ConsumerRecord<String, String>> audited(DeadLetterReader audit, String key) {
		return audit.readToEnd().stream().filter((record) -> key.equals(record.key())).toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		@Primary
		DefaultKafkaProducerFactory<String, String> kafkaProducerFactory(
				@Value("${spring.kafka.bootstrap-servers}") String brokers) {
			return new DefaultKafkaProducerFactory<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers),
					new StringSerializer(), new StringSerializer());
		}

		@Bean
		@Primary
		KafkaTemplate<String, String> kafkaTemplate(ProducerFactory<String, String> kafkaProducerFactory) {
			return new KafkaTemplate<>(kafkaProducerFactory);
		}

		@Bean
		DefaultKafkaProducerFactory<String, String> auditProducerFactory(
				@Value("${spring.kafka.bootstrap-servers}") String brokers) {
			return new DefaultKafkaProducerFactory<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers,
					ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, AuditInterceptor.class.getName()), new StringSerializer(),
					new StringSerializer());
		}

		@Bean
		KafkaTemplate<String, String> auditTemplate(
				@Qualifier("auditProducerFactory") ProducerFactory<String, String> auditProducerFactory) {
			return new KafkaTemplate<>(auditProducerFactory);
		}

		@Bean
		AuditedListener auditedListener(ItLedger ledger,
				@Qualifier("auditTemplate") KafkaTemplate<String, String> auditTemplate, @Value("${it.run}") String run) {
			return new AuditedListener(ledger, auditTemplate, run);
		}

	}

	static class AuditedListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> audit;

		private final String run;

		AuditedListener(ItLedger ledger, KafkaTemplate<String, String> audit, String run) {
			this.ledger = ledger;
			this.audit = audit;
			this.run = run;
		}

		@KafkaListener(topics = IN, groupId = "${it.run}-factories")
		@IdempotentListener
		public void onPayment(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.ledger.credit(this.run, key, payload);
			ProducerRecord<String, String> audited = new ProducerRecord<>(AUDIT, key, key + ":audited");
			audited.headers().add(AuditInterceptor.AUDIT_ID, key.getBytes(StandardCharsets.UTF_8));
			this.audit.send(audited);
		}

	}

	/** The audit producer factory's interceptor: counts the records it sends, by their audit id. */
	public static class AuditInterceptor implements ProducerInterceptor<Object, Object> {

		static final String AUDIT_ID = "audit-id";

		private static final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();

		static int sent(String auditId) {
			AtomicInteger count = sent.get(auditId);
			return (count != null) ? count.get() : 0;
		}

		@Override
		public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
			org.apache.kafka.common.header.Header id = record.headers().lastHeader(AUDIT_ID);
			if (id != null) {
				sent.computeIfAbsent(new String(id.value(), StandardCharsets.UTF_8), (key) -> new AtomicInteger())
					.incrementAndGet();
			}
			return record;
		}

		@Override
		public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
		}

		@Override
		public void close() {
		}

		@Override
		public void configure(Map<String, ?> configs) {
		}

	}

}
