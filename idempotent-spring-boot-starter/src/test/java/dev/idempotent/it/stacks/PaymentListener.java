package dev.idempotent.it.stacks;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The listener of the data-layer tests: payload {@code <reference>|<mode>}; writes the payment through the
 * stack's {@link PaymentWriter}, then fails as the mode asks ({@link Attempts}).
 */
public class PaymentListener {

	static final String TOPIC = "stack.payments";

	private final PaymentWriter writer;

	private final Attempts attempts;

	private final String group;

	public PaymentListener(PaymentWriter writer, Attempts attempts, String group) {
		this.writer = writer;
		this.attempts = attempts;
		this.group = group;
	}

	@KafkaListener(topics = TOPIC, groupId = "${it.run}-${it.stack}")
	@IdempotentListener
	public void onPayment(String payload, @Header(IdempotencyHeaders.KEY) String key) {
		int call = this.attempts.call(key);
		String[] parts = payload.split("\\|");
		this.writer.save(this.group, key, parts[0]);
		this.attempts.failIfAsked(key, parts[1], call);
	}

}
