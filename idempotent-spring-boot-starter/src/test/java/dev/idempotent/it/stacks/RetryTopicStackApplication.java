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
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Non-blocking retries with {@code @RetryableTopic}: a failed record goes to a retry topic, consumed by a
 * container of its own (spring-kafka gives it the listener's group id with the retry topic's suffix), and after
 * the last attempt to the {@code -dlt} topic.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
public class RetryTopicStackApplication {

	static final String TOPIC = "stack.retry-topic";

	static final String SCOPED_TOPIC = "stack.retry-topic-scoped";

	@Bean
	RetryingListener retryingListener(StackPayments payments, Attempts attempts, @Value("${it.run}-retry") String group) {
		return new RetryingListener(payments, attempts, group);
	}

	@Bean
	ScopedRetryingListener scopedRetryingListener(StackPayments payments, Attempts attempts,
			@Value("${it.run}-retry-scoped") String group) {
		return new ScopedRetryingListener(payments, attempts, group);
	}

	/** Credits the payment, then fails as the payload (the mode) asks. */
	public static class RetryingListener extends CreditingListener {

		RetryingListener(StackPayments payments, Attempts attempts, String group) {
			super(payments, attempts, group);
		}

		@RetryableTopic(attempts = "3")
		@KafkaListener(topics = TOPIC, groupId = "${it.run}-retry")
		@IdempotentListener(scope = "${it.run}-retry")
		public void onPayment(String mode, @Header(name = IdempotencyHeaders.KEY, required = false) @Nullable String key) {
			int call = call(String.valueOf(key));
			credit(String.valueOf(key));
			failIfAsked(String.valueOf(key), mode, call);
		}

	}

	/**
	 * The same, with the scope named on the annotation: the main topic's and the retry topic's containers then claim
	 * in one scope although their group ids differ.
	 */
	public static class ScopedRetryingListener extends CreditingListener {

		ScopedRetryingListener(StackPayments payments, Attempts attempts, String group) {
			super(payments, attempts, group);
		}

		@RetryableTopic(attempts = "3")
		@KafkaListener(topics = SCOPED_TOPIC, groupId = "${it.run}-retry-scoped")
		@IdempotentListener(scope = "${it.run}-retry-scoped")
		public void onPayment(String mode, @Header(IdempotencyHeaders.KEY) String key) {
			int call = call(key);
			credit(key);
			failIfAsked(key, mode, call);
		}

	}

}
