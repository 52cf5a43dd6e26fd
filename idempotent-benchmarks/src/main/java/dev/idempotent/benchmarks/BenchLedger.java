package dev.idempotent.benchmarks;

import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The business write of every variant: the sample ledger's credit row plus its notification outbox row. Rows are
 * tagged with the variant's run (its consumer group), so runs never count each other's rows.
 */
public class BenchLedger {

	static final String DDL_LEDGER = "CREATE TABLE IF NOT EXISTS bench_ledger (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
			+ " variant VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, amount_minor BIGINT NOT NULL,"
			+ " INDEX idx_bench_ledger_order (variant, order_id))";

	static final String DDL_OUTBOX = "CREATE TABLE IF NOT EXISTS bench_outbox (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
			+ " variant VARCHAR(64) NOT NULL, order_id VARCHAR(64) NOT NULL, kind VARCHAR(32) NOT NULL)";

	private static final String LEDGER_INSERT = "INSERT INTO bench_ledger (variant, order_id, amount_minor) VALUES (?, ?, ?)";

	private static final String OUTBOX_INSERT = "INSERT INTO bench_outbox (variant, order_id, kind) VALUES (?, ?, 'PAYMENT_RECEIVED')";

	private final JdbcTemplate jdbc;

	private final String variant;

	public BenchLedger(JdbcTemplate jdbc, String variant) {
		this.jdbc = jdbc;
		this.variant = variant;
		jdbc.execute(DDL_LEDGER);
		jdbc.execute(DDL_OUTBOX);
	}

	/** Credit an order: two INSERTs, in the caller's transaction. */
	public void credit(String orderId, String payload) {
		this.jdbc.update(LEDGER_INSERT, this.variant, orderId, amount(payload));
		this.jdbc.update(OUTBOX_INSERT, this.variant, orderId);
	}

	/**
	 * Credit several orders ({@code [orderId, payload]} pairs): each INSERT as one JDBC batch, in the caller's
	 * transaction (with {@code rewriteBatchedStatements=true}, one multi-row statement on MySQL/MariaDB).
	 */
	public void creditAll(List<String[]> orders) {
		List<Object[]> ledger = new ArrayList<>(orders.size());
		List<Object[]> outbox = new ArrayList<>(orders.size());
		for (String[] order : orders) {
			ledger.add(new Object[] { this.variant, order[0], amount(order[1]) });
			outbox.add(new Object[] { this.variant, order[0] });
		}
		this.jdbc.batchUpdate(LEDGER_INSERT, ledger);
		this.jdbc.batchUpdate(OUTBOX_INSERT, outbox);
	}

	private static long amount(String payload) {
		return Long.parseLong(payload.substring(payload.indexOf('|') + 1));
	}

	/** Ledger rows of this variant minus distinct orders: the duplicates that took effect. */
	public long duplicatesTakenEffect() {
		Long rows = this.jdbc.queryForObject("SELECT COUNT(*) - COUNT(DISTINCT order_id) FROM bench_ledger WHERE variant = ?",
				Long.class, this.variant);
		return (rows != null) ? rows : -1;
	}

	public long distinctOrders() {
		Long rows = this.jdbc.queryForObject("SELECT COUNT(DISTINCT order_id) FROM bench_ledger WHERE variant = ?",
				Long.class, this.variant);
		return (rows != null) ? rows : -1;
	}

}
