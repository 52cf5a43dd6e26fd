package dev.idempotent.sample;

import dev.idempotent.kafka.IdempotentListener;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AbstractConsumerSeekAware;
import org.springframework.stereotype.Component;

/**
 * Consumes order-paid events. Each event is credited once per order id, however often it is delivered, and a
 * {@link LedgerCredited} event is published for it: consume, process, produce. The event is sent under the claim, so
 * it is stored with it and sent again (with the same idempotency key header) when a redelivery is a hit: it is never
 * lost, and a downstream {@code @IdempotentListener} processes it once.
 * Extends {@link AbstractConsumerSeekAware} only so the demo can rewind to offset 0, as a lost offset
 * commit would.
 */
@Component
public class PaymentListener extends AbstractConsumerSeekAware {

	/** The listener container id. */
	public static final String ID = "ledger";

	private final Ledger ledger;

	private final KafkaTemplate<String, String> template;

	private final LedgerProperties properties;

	PaymentListener(Ledger ledger, KafkaTemplate<String, String> template, LedgerProperties properties) {
		this.ledger = ledger;
		this.template = template;
		this.properties = properties;
	}

	/**
	 * Credit a cleared payment and publish that it was credited.
	 * @param event the payment
	 */
	@KafkaListener(id = ID, topics = "${ledger.topic}", groupId = "ledger")
	@IdempotentListener(key = "'pay:' + #payload.orderId")
	public void onPaid(OrderPaid event) {
		this.ledger.credit(event);
		LedgerCredited credited = new LedgerCredited(event.orderId(), event.amountMinor(), event.currency());
		this.template.send(this.properties.getCreditedTopic(), event.orderId(), EventJson.write(credited));
	}

}
