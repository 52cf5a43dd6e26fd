package dev.idempotent.sample;

import java.sql.Timestamp;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The business write: one credit in {@code t_ledger} and one row in the {@code t_notification} outbox. It runs
 * in the transaction the idempotent listener opened, so the claim, the credit and the outbox row commit
 * together.
 */
@Component
public class Ledger {

	private final JdbcTemplate jdbc;

	Ledger(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Credit the order's amount and queue the customer notification.
	 * @param event the cleared payment
	 */
	public void credit(OrderPaid event) {
		this.jdbc.update("INSERT INTO t_ledger (order_id, biz_type, amount_minor, currency, paid_at) VALUES (?, ?, ?, ?, ?)",
				event.orderId(), "PAY_CREDIT", event.amountMinor(), event.currency(), Timestamp.from(event.paidAt()));
		this.jdbc.update("INSERT INTO t_notification (order_id, kind) VALUES (?, ?)", event.orderId(), "PAYMENT_RECEIVED");
	}

}
