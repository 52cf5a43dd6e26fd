package dev.idempotent.it;

import java.util.List;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener that writes through a {@code @Transactional(propagation = REQUIRES_NEW)} bean commits that write
 * outside the claim: the starter logs one WARN naming the method, however many records pass.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractInnerTransactionIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = AbstractInnerTransactionIT.TOPIC)
abstract class AbstractInnerTransactionIT {

	static final String TOPIC = "inner.orders";

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Value("${it.run}")
	String run;

	LogCapture executorLog;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		String run = UUID.randomUUID().toString().substring(0, 8);
		registry.add("it.run", () -> run);
	}

	@BeforeEach
	void captureLogs() {
		this.executorLog = new LogCapture(TransactionalClaimExecutor.class.getName());
	}

	@AfterEach
	void releaseLogs() {
		this.executorLog.close();
	}

	@Test
	void aRequiresNewWriteInsideTheListenerIsWarnedAboutOnceWithItsMethod() throws Exception {
		String group = this.run + "-inner";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(TOPIC, List.of(group + "-1", group + "-2", group + "-3"));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, TOPIC) == 0);
		}

		assertThat(this.ledger.rows(group)).isEqualTo(3);
		assertThat(this.executorLog.messages(Level.WARN)).singleElement()
			.asString()
			.contains("scope=" + group, AuditTrail.class.getName() + ".record", "outside the claim's transaction");
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		AuditTrail auditTrail(ItLedger ledger) {
			return new AuditTrail(ledger);
		}

		@Bean
		AuditedListener auditedListener(AuditTrail audit, @Value("${it.run}") String run) {
			return new AuditedListener(audit, run + "-inner");
		}

	}

	/** Writes in a transaction of its own, as audit logs often do. */
	static class AuditTrail {

		private final ItLedger ledger;

		AuditTrail(ItLedger ledger) {
			this.ledger = ledger;
		}

		@Transactional(propagation = Propagation.REQUIRES_NEW)
		public void record(String group, ConsumerRecord<String, String> record) {
			this.ledger.credit(group, record.key(), record.value());
		}

	}

	static class AuditedListener {

		private final AuditTrail audit;

		private final String group;

		AuditedListener(AuditTrail audit, String group) {
			this.audit = audit;
			this.group = group;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-inner")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) {
			this.audit.record(this.group, record);
		}

	}

}
