package dev.idempotent.benchmarks;

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
		long amount = Long.parseLong(payload.substring(payload.indexOf('|') + 1));
		this.jdbc.update("INSERT INTO bench_ledger (variant, order_id, amount_minor) VALUES (?, ?, ?)", this.variant,
				orderId, amount);
		this.jdbc.update("INSERT INTO bench_outbox (variant, order_id, kind) VALUES (?, ?, 'PAYMENT_RECEIVED')",
				this.variant, orderId);
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
