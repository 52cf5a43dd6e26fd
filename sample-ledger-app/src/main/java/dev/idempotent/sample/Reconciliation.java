package dev.idempotent.sample;

import java.util.Objects;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The reconciliation queries: ledger rows, orders credited more than once (the audit query: group the ledger by
 * order id, HAVING COUNT(*) > 1), and orders not credited at all. Every query is limited to one run's orders.
 */
@Component
public class Reconciliation {

	private final JdbcTemplate jdbc;

	Reconciliation(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Count the ledger rows of a run.
	 * @param runId the run's order id prefix
	 * @return the number of rows
	 */
	public long ledgerRows(String runId) {
		return count("SELECT COUNT(*) FROM t_ledger WHERE order_id LIKE ?", runId);
	}

	/**
	 * Count the orders of a run that were credited more than once.
	 * @param runId the run's order id prefix
	 * @return the number of order ids with more than one ledger row
	 */
	public long doubleCredits(String runId) {
		return count("SELECT COUNT(*) FROM (SELECT order_id FROM t_ledger WHERE order_id LIKE ? AND biz_type = 'PAY_CREDIT'"
				+ " GROUP BY order_id HAVING COUNT(*) > 1) duplicated", runId);
	}

	/**
	 * Count the orders of a run that were published but never credited.
	 * @param runId the run's order id prefix
	 * @param events how many distinct orders were published
	 * @return the number of orders without a ledger row
	 */
	public long missing(String runId, int events) {
		return events - count("SELECT COUNT(DISTINCT order_id) FROM t_ledger WHERE order_id LIKE ?", runId);
	}

	private long count(String sql, String runId) {
		return Objects.requireNonNull(this.jdbc.queryForObject(sql, Long.class, "ORD-" + runId + "-%"));
	}

}
