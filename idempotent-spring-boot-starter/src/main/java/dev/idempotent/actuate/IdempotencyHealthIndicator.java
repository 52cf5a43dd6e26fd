package dev.idempotent.actuate;

import java.util.List;

import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.SchemaValidator;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.dao.DataAccessException;

/**
 * The {@code idempotency} health contributor. UP when the idempotency table answers a lookup through its unique
 * index and the startup check ({@link SchemaValidator}) finds nothing wrong: a UNIQUE index on exactly (scope,
 * idempotency_key), the columns, the key length and byte-for-byte collations. DOWN otherwise, with a
 * {@code reason} detail (and {@code problems} or {@code error}). Details always name the {@code table} and the
 * {@code dialect}.
 * <p>Each call runs one indexed lookup and the metadata reads of the check (a few catalog queries). Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotencyHealthIndicator implements HealthIndicator {

	private final ClaimInspector inspector;

	private final SchemaValidator validator;

	/**
	 * Create the indicator.
	 * @param inspector the queries over the idempotency table, never {@code null}
	 * @param validator the check of the same table, never {@code null}
	 */
	public IdempotencyHealthIndicator(ClaimInspector inspector, SchemaValidator validator) {
		this.inspector = inspector;
		this.validator = validator;
	}

	/**
	 * Check the table. Never throws: a failure is reported as DOWN.
	 * @return the health, never {@code null}
	 */
	@Override
	public Health health() {
		Health.Builder health = new Health.Builder().withDetail("table", this.inspector.getTable().value())
			.withDetail("dialect", this.inspector.getDialect().id());
		try {
			this.inspector.probe();
		}
		catch (DataAccessException ex) {
			return health.down(ex)
				.withDetail("reason", "the idempotency table does not answer a lookup by (scope, idempotency_key)")
				.build();
		}
		List<String> problems;
		try {
			problems = this.validator.problems();
		}
		catch (IllegalStateException ex) {
			return health.down(ex).withDetail("reason", "the metadata of the idempotency table cannot be read").build();
		}
		if (!problems.isEmpty()) {
			return health.down()
				.withDetail("reason", "the idempotency table cannot guarantee once-only processing: " + problems.get(0))
				.withDetail("problems", problems)
				.build();
		}
		return health.up().build();
	}

}
