package dev.idempotent.it.stacks;

import java.util.Objects;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The business table of the stacks tests, written by each stack's own data layer (JPA, MyBatis, JdbcClient):
 * one row per credited payment, by consumer group and key, with a business reference that is unique on its own
 * (a second payment with the same reference is a business unique violation, not an idempotent hit).
 */
public class StackPayments {

	static final String DDL = "CREATE TABLE IF NOT EXISTS stack_payment (id VARCHAR(36) NOT NULL PRIMARY KEY,"
			+ " grp VARCHAR(128) NOT NULL, idem_key VARCHAR(200) NOT NULL, reference VARCHAR(200) NOT NULL,"
			+ " CONSTRAINT uq_stack_payment_reference UNIQUE (reference))";

	private final JdbcTemplate jdbc;

	public StackPayments(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute(DDL);
	}

	/** Credit a payment of {@code key} with a fresh reference; for listeners that write with plain JDBC. */
	public void credit(String group, String key) {
		this.jdbc.update("INSERT INTO stack_payment (id, grp, idem_key, reference) VALUES (?, ?, ?, ?)",
				UUID.randomUUID().toString(), group, key, UUID.randomUUID().toString());
	}

	/** Count the rows of one key in a group. */
	public long rows(String group, String key) {
		return Objects.requireNonNull(this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM stack_payment WHERE grp = ? AND idem_key = ?", Long.class, group, key));
	}

	/** Count the rows with a business reference, whatever their group. */
	public long rowsWithReference(String reference) {
		return Objects.requireNonNull(this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM stack_payment WHERE reference = ?", Long.class, reference));
	}

}
