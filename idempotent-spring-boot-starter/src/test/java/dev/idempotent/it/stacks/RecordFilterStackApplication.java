package dev.idempotent.it.stacks;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.adapter.RecordFilterStrategy;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A {@link RecordFilterStrategy} on a single-record listener ({@code @KafkaListener(filter = ...)}): records whose
 * value starts with {@code skip} are discarded before the listener (and so before the claim).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class RecordFilterStackApplication {

	static final String TOPIC = "stack.filtered";

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
	RecordFilterStrategy<String, String> skipRecords() {
		return (record) -> record.value() != null && record.value().startsWith("skip");
	}

	@Bean
	FilteredListener filteredListener(StackPayments payments, Attempts attempts, @Value("${it.run}-filter") String group) {
		return new FilteredListener(payments, attempts, group);
	}

	/** Credits every record the filter lets through. */
	public static class FilteredListener {

		private final StackPayments payments;

		private final Attempts attempts;

		private final String group;

		FilteredListener(StackPayments payments, Attempts attempts, String group) {
			this.payments = payments;
			this.attempts = attempts;
			this.group = group;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-filter", filter = "skipRecords")
		@IdempotentListener
		public void onPayment(String payload, @Header(name = IdempotencyHeaders.KEY, required = false) @Nullable String key) {
			this.attempts.call(String.valueOf(key));
			this.payments.credit(this.group, String.valueOf(key));
		}

	}

}
