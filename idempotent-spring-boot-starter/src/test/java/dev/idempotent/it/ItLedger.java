package dev.idempotent.it;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The business table of the end-to-end tests: one row per credited delivery, by consumer group and key.
 * A key credited twice in one group shows up as two rows.
 */
public class ItLedger {

	static final String DDL = "CREATE TABLE IF NOT EXISTS it_ledger (grp VARCHAR(128) NOT NULL,"
			+ " idem_key VARCHAR(200) NOT NULL, payload VARCHAR(500) NOT NULL)";

	private final JdbcTemplate jdbc;

	public ItLedger(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute(DDL);
	}

	/** Credit a delivery; called by listeners inside the claim's transaction. */
	public void credit(String group, String key, String payload) {
		this.jdbc.update("INSERT INTO it_ledger (grp, idem_key, payload) VALUES (?, ?, ?)", group, key, payload);
	}

	/** Count the rows of a group. */
	public long rows(String group) {
		return Objects.requireNonNull(this.jdbc.queryForObject("SELECT COUNT(*) FROM it_ledger WHERE grp = ?", Long.class, group));
	}

	/** Count the rows of one key in a group. */
	public long rows(String group, String key) {
		return Objects.requireNonNull(this.jdbc.queryForObject("SELECT COUNT(*) FROM it_ledger WHERE grp = ? AND idem_key = ?",
				Long.class, group, key));
	}

	/** Count the distinct keys of a group. */
	public long distinctKeys(String group) {
		return Objects.requireNonNull(this.jdbc.queryForObject("SELECT COUNT(DISTINCT idem_key) FROM it_ledger WHERE grp = ?",
				Long.class, group));
	}

	/** The audit query: keys of a group credited more than once, with their counts. */
	public List<Map<String, Object>> doubleCredits(String group) {
		return this.jdbc.queryForList("SELECT idem_key, COUNT(*) c FROM it_ledger WHERE grp = ? GROUP BY idem_key HAVING COUNT(*) > 1",
				group);
	}

}
