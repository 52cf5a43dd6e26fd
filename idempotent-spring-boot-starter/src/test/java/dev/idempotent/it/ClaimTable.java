package dev.idempotent.it;

import java.util.List;
import java.util.Objects;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The rows of the default idempotency table ({@code idempotent_claim}) as the end-to-end tests check them, read
 * with the test's own {@link JdbcTemplate}. Thread-safe.
 */
final class ClaimTable {

	private final JdbcTemplate jdbc;

	ClaimTable(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/** The status code of a key's row (0 PROCESSING, 1 SUCCEEDED, 2 FAILED), or -1 without a row. */
	int status(String scope, String key) {
		List<Integer> status = this.jdbc.queryForList(
				"SELECT status FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?", Integer.class, scope, key);
		return status.isEmpty() ? -1 : status.get(0);
	}

	/**
	 * How often a key's delivery was attempted, as its row records it.
	 * @throws org.springframework.dao.EmptyResultDataAccessException without a row
	 */
	int attempts(String scope, String key) {
		return Objects.requireNonNull(this.jdbc.queryForObject(
				"SELECT attempts FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?", Integer.class, scope, key));
	}

}
