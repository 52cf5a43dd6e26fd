package dev.idempotent.it.stacks;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.adapter.RecordFilterStrategy;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A {@link RecordFilterStrategy} on a single-record listener ({@code @KafkaListener(filter = ...)}): records whose
 * value starts with {@code skip} are discarded before the listener (and so before the claim).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
public class RecordFilterStackApplication {

	static final String TOPIC = "stack.filtered";

	@Bean
	RecordFilterStrategy<String, String> skipRecords() {
		return (record) -> record.value() != null && record.value().startsWith("skip");
	}

	@Bean
	FilteredListener filteredListener(StackPayments payments, Attempts attempts, @Value("${it.run}-filter") String group) {
		return new FilteredListener(payments, attempts, group);
	}

	/** Credits every record the filter lets through. */
	public static class FilteredListener extends CreditingListener {

		FilteredListener(StackPayments payments, Attempts attempts, String group) {
			super(payments, attempts, group);
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-filter", filter = "skipRecords")
		@IdempotentListener
		public void onPayment(String payload, @Header(name = IdempotencyHeaders.KEY, required = false) @Nullable String key) {
			call(String.valueOf(key));
			credit(String.valueOf(key));
		}

	}

}
