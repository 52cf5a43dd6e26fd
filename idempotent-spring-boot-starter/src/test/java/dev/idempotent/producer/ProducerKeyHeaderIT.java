package dev.idempotent.producer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.autoconfigure.IdempotentProducerAutoConfiguration;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.kafka.test.utils.KafkaTestUtils;

import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.KEY_HEADER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The key-header interceptor on Spring Boot's producer factory, through a real (embedded KRaft) broker: records
 * without the header arrive with a UUID, records with one arrive with it unchanged, and the application's own
 * interceptor still runs.
 */
class ProducerKeyHeaderIT {

	private static final String TOPIC = "producer-key-header";

	private static EmbeddedKafkaKraftBroker broker;

	@BeforeAll
	static void startBroker() {
		broker = new EmbeddedKafkaKraftBroker(1, 1, TOPIC);
		broker.afterPropertiesSet();
	}

	@AfterAll
	static void stopBroker() {
		broker.destroy();
	}

	@Test
	void addsAKeyToRecordsWithoutOneAndKeepsExistingKeys() {
		int before = CountingProducerInterceptor.sent.get();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(KAFKA, IdempotentProducerAutoConfiguration.class,
					KEY_HEADER))
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"idempotent.producer.add-key-header=true", "idempotent.key-header=x-idempotency-key",
					"spring.kafka.producer.key-serializer=org.apache.kafka.common.serialization.StringSerializer",
					"spring.kafka.producer.value-serializer=org.apache.kafka.common.serialization.StringSerializer",
					"spring.kafka.producer.properties[interceptor.classes]=" + CountingProducerInterceptor.class.getName())
			.run((context) -> {
				@SuppressWarnings("unchecked")
				KafkaTemplate<String, String> template = context.getBean(KafkaTemplate.class);
				template.send(TOPIC, "without").get();
				ProducerRecord<String, String> keyed = new ProducerRecord<>(TOPIC, "with");
				keyed.headers().add("x-idempotency-key", "order-7".getBytes(StandardCharsets.UTF_8));
				template.send(keyed).get();
			});
		assertThat(CountingProducerInterceptor.sent.get() - before).as("the application's interceptor ran").isEqualTo(2);

		Map<String, List<String>> keys = readKeys();
		assertThat(keys.get("with")).containsExactly("order-7");
		assertThat(keys.get("without")).singleElement()
			.satisfies((key) -> assertThat(UUID.fromString(key).toString()).isEqualTo(key));
	}

	private static Map<String, List<String>> readKeys() {
		Map<String, Object> props = KafkaTestSupport.consumerProps(broker.getBrokersAsString(), "producer-key-header-it");
		props.put("auto.offset.reset", "earliest");
		Map<String, List<String>> keys = new HashMap<>();
		try (Consumer<String, String> consumer = new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(),
				new StringDeserializer()).createConsumer()) {
			consumer.subscribe(List.of(TOPIC));
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				for (ConsumerRecord<String, String> record : KafkaTestUtils.getRecords(consumer, Duration.ofMillis(200))) {
					List<String> values = new ArrayList<>();
					for (Header header : record.headers().headers("x-idempotency-key")) {
						values.add(new String(header.value(), StandardCharsets.UTF_8));
					}
					keys.put(record.value(), values);
				}
				return keys.size() == 2;
			});
		}
		return keys;
	}

}
