package dev.idempotent.it.stacks;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A single-record listener behind an {@code ErrorHandlingDeserializer} (configured in the test's properties,
 * delegating to {@link StrictStringDeserializer}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class PoisonRecordStackApplication {

	static final String TOPIC = "stack.poison";

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	StackPayments stackPayments(JdbcTemplate jdbc) {
		return new StackPayments(jdbc);
	}

	@Bean
	Attempts attempts() {
		return new Attempts();
	}

	@Bean
	ReadingListener readingListener(StackPayments payments, Attempts attempts, @Value("${it.run}-poison") String group) {
		return new ReadingListener(payments, attempts, group);
	}

	/** Credits every record it can read. */
	public static class ReadingListener {

		private final StackPayments payments;

		private final Attempts attempts;

		private final String group;

		ReadingListener(StackPayments payments, Attempts attempts, String group) {
			this.payments = payments;
			this.attempts = attempts;
			this.group = group;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-poison")
		@IdempotentListener
		public void onPayment(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.attempts.call(key);
			this.payments.credit(this.group, key);
		}

	}

}
