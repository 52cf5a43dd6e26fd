package dev.idempotent.boot3;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Spring Boot 3.5 starter in an application on Spring Boot 3.5 (spring-kafka 3.3, Spring Framework 6.2): a
 * record listener on an embedded broker and H2 takes each key once, re-sent keys are hits, the health contributor is
 * Boot 3's, and the key header interceptor sits on Boot 3's producer factory.
 */
@SpringBootTest(classes = Boot3StarterIT.Application.class, properties = {
		"spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}", "spring.kafka.consumer.auto-offset-reset=earliest",
		"spring.datasource.url=jdbc:h2:mem:boot3;DB_CLOSE_DELAY=-1", "idempotent.producer.add-key-header=true",
		"management.health.idempotency.enabled=true" })
@EmbeddedKafka(partitions = 1, topics = Boot3StarterIT.TOPIC)
class Boot3StarterIT {

	static final String TOPIC = "boot3.orders";

	@Autowired
	KafkaTemplate<String, String> kafka;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	Ledger ledger;

	@Autowired
	ApplicationContext context;

	@Test
	void eachKeyTakesEffectOnceOnSpringBoot3() {
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<String> keys = List.of(run + "-1", run + "-2", run + "-1", run + "-3", run + "-2");
		for (String key : keys) {
			ProducerRecord<String, String> record = new ProducerRecord<>(TOPIC, key, "credit " + key);
			record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
			this.kafka.send(record);
		}
		await().atMost(java.time.Duration.ofSeconds(60))
			.until(() -> this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotent_claim WHERE idempotency_key LIKE ?",
					Integer.class, run + "%") == 3 && this.ledger.calls(run) == 3);
		assertThat(this.ledger.calls(run + "-1")).isOne();
		assertThat(this.ledger.calls(run + "-2")).isOne();
		assertThat(this.ledger.calls(run + "-3")).isOne();
	}

	@Test
	void theHealthContributorAndTheKeyHeaderCustomizerAreSpringBoot3s() {
		HealthIndicator health = this.context.getBean("idempotencyHealthIndicator", HealthIndicator.class);
		assertThat(health.health().getStatus()).isEqualTo(Status.UP);
		assertThat(this.context.getBeansOfType(KeyHeaderProducerFactoryCustomizer.class)).hasSize(1);
		assertThat(this.kafka.getProducerFactory().getConfigurationProperties().get("interceptor.classes"))
			.asString()
			.contains("IdempotencyKeyProducerInterceptor");
	}

	@SpringBootApplication
	static class Application {

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

	}

	static class Ledger {

		private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

		@KafkaListener(topics = TOPIC, groupId = "boot3")
		@IdempotentListener
		public void credit(String payload) {
			this.calls.computeIfAbsent(IdempotencyContext.currentKey(), (key) -> new AtomicInteger()).incrementAndGet();
		}

		int calls(String keyOrPrefix) {
			return this.calls.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().startsWith(keyOrPrefix))
				.mapToInt((entry) -> entry.getValue().get())
				.sum();
		}

	}

}
