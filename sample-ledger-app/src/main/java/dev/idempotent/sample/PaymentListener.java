package dev.idempotent.sample;

import dev.idempotent.kafka.IdempotentListener;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.AbstractConsumerSeekAware;
import org.springframework.stereotype.Component;

/**
 * Consumes order-paid events. Each event is credited once per order id, however often it is delivered.
 * Extends {@link AbstractConsumerSeekAware} only so the demo can rewind to offset 0, as a lost offset
 * commit would.
 */
@Component
public class PaymentListener extends AbstractConsumerSeekAware {

	/** The listener container id. */
	public static final String ID = "ledger";

	private final Ledger ledger;

	PaymentListener(Ledger ledger) {
		this.ledger = ledger;
	}

	/**
	 * Credit a cleared payment.
	 * @param event the payment
	 */
	@KafkaListener(id = ID, topics = "${ledger.topic}", groupId = "ledger")
	@IdempotentListener(key = "'pay:' + #payload.orderId")
	public void onPaid(OrderPaid event) {
		this.ledger.credit(event);
	}

}
