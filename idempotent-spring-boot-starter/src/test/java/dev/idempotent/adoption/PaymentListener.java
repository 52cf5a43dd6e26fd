package dev.idempotent.adoption;

import java.math.BigDecimal;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** The service's listener: credits the ledger once per order, keyed by the order id (the record's key). */
@Component
class PaymentListener {

	private final JdbcTemplate jdbc;

	PaymentListener(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@KafkaListener(topics = "payments", groupId = "ledger")
	@IdempotentListener(scope = "ledger", key = "'pay:' + #key")
	public void onPayment(ConsumerRecord<String, String> record) {
		this.jdbc.update("INSERT INTO ledger_entry (order_id, amount) VALUES (?, ?)", record.key(),
				new BigDecimal(record.value()));
	}

}
