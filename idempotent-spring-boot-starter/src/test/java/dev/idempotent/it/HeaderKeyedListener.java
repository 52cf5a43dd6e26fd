package dev.idempotent.it;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.annotation.KafkaListener;

/**
 * A single-record listener of the topic {@code it.topic} in the group {@code it.group}, keyed by the producer-set
 * idempotency key header, that credits the {@link ItLedger} under its group.
 */
public class HeaderKeyedListener {

	private final ItLedger ledger;

	private final String group;

	/**
	 * Create the listener.
	 * @param ledger where it credits
	 * @param group the group it credits under, its consumer group's id
	 */
	public HeaderKeyedListener(ItLedger ledger, String group) {
		this.ledger = ledger;
		this.group = group;
	}

	@KafkaListener(topics = "${it.topic}", groupId = "${it.group}")
	@IdempotentListener
	public void onPayment(ConsumerRecord<String, String> record) {
		this.ledger.credit(this.group, record.key(), record.value());
	}

}
