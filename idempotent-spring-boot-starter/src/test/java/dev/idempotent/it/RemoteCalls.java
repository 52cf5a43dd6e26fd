package dev.idempotent.it;

import java.util.Objects;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A fake remote service (an SMS or payment gateway) shared by every consumer process: each call is one row, with
 * the idempotency key the caller passed. Rows commit on their own, as a remote call would.
 */
public class RemoteCalls {

	private final JdbcTemplate jdbc;

	public RemoteCalls(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute("CREATE TABLE IF NOT EXISTS it_remote_calls (grp VARCHAR(128) NOT NULL, idem_key VARCHAR(200) NOT NULL)");
	}

	/** Call the remote service with an idempotency key. */
	public void call(String group, String idempotencyKey) {
		this.jdbc.update("INSERT INTO it_remote_calls (grp, idem_key) VALUES (?, ?)", group, idempotencyKey);
	}

	/** Count the calls made with a key. */
	public long calls(String group, String idempotencyKey) {
		return Objects.requireNonNull(this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM it_remote_calls WHERE grp = ? AND idem_key = ?", Long.class, group, idempotencyKey));
	}

}
