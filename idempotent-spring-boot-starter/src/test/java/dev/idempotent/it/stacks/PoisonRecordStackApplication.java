package dev.idempotent.it.stacks;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A single-record listener behind an {@code ErrorHandlingDeserializer} (configured in the test's properties,
 * delegating to {@link StrictStringDeserializer}).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
public class PoisonRecordStackApplication {

	static final String TOPIC = "stack.poison";

	@Bean
	ReadingListener readingListener(StackPayments payments, Attempts attempts, @Value("${it.run}-poison") String group) {
		return new ReadingListener(payments, attempts, group);
	}

	/** Credits every record it can read. */
	public static class ReadingListener extends CreditingListener {

		ReadingListener(StackPayments payments, Attempts attempts, String group) {
			super(payments, attempts, group);
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-poison")
		@IdempotentListener
		public void onPayment(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			call(key);
			credit(key);
		}

	}

}
