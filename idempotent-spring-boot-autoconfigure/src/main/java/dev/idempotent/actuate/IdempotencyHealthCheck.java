package dev.idempotent.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.SchemaValidator;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * What the {@code idempotency} health contributor reports, without Spring Boot's health types (each starter adapts it
 * to its Boot generation's {@code HealthIndicator}). UP when the idempotency table answers a lookup through its
 * unique index and the startup check ({@link SchemaValidator}) finds nothing wrong: a UNIQUE index on exactly (scope,
 * idempotency_key), the columns, the key length and byte-for-byte collations. DOWN otherwise, with a {@code reason}
 * detail (and {@code problems}, or the error). Details always name the {@code table} and the {@code dialect}.
 * <p>Each call runs one indexed lookup and the metadata reads of the check (a few catalog queries). Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotencyHealthCheck {

	private final ClaimInspector inspector;

	private final SchemaValidator validator;

	/**
	 * Create the check.
	 * @param inspector the queries over the idempotency table, never {@code null}
	 * @param validator the check of the same table, never {@code null}
	 */
	public IdempotencyHealthCheck(ClaimInspector inspector, SchemaValidator validator) {
		this.inspector = inspector;
		this.validator = validator;
	}

	/**
	 * Check the table. Never throws: a failure is reported as DOWN.
	 * @return the result, never {@code null}
	 */
	public Result check() {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("table", this.inspector.getTable().value());
		details.put("dialect", this.inspector.getDialect().id());
		try {
			this.inspector.probe();
		}
		catch (DataAccessException ex) {
			details.put("reason", "the idempotency table does not answer a lookup by (scope, idempotency_key)");
			return new Result(false, details, ex);
		}
		List<String> problems;
		try {
			problems = this.validator.problems();
		}
		catch (IllegalStateException ex) {
			details.put("reason", "the metadata of the idempotency table cannot be read");
			return new Result(false, details, ex);
		}
		if (!problems.isEmpty()) {
			details.put("reason", "the idempotency table cannot guarantee once-only processing: " + problems.get(0));
			details.put("problems", problems);
			return new Result(false, details, null);
		}
		return new Result(true, details, null);
	}

	/**
	 * The outcome of a check.
	 *
	 * @param up whether the table can keep the guarantee
	 * @param details the details to report, in order
	 * @param error the failure that made it DOWN, if one did
	 */
	public record Result(boolean up, Map<String, Object> details, @Nullable Throwable error) {
	}

}
