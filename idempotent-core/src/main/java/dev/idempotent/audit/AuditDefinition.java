package dev.idempotent.audit;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A declared reconciliation audit: the business keys of {@code table}, in column {@code keyColumn}, that occur in
 * more than one row (optionally only among the rows matching {@code filter}) are reported as duplicates.
 * <p>The table and the column are written into SQL text, so they are validated as plain identifiers (the table
 * optionally schema-qualified). The filter is a boolean SQL expression inserted as it is into the WHERE clause: it
 * is <strong>trusted SQL from the application's configuration</strong>, never to be built from user input. Filters
 * with a statement separator ({@code ;}) or a comment ({@code --}, {@code /*}) are refused: a guard against
 * mistakes, not a security boundary (it does not parse SQL).
 * Immutable and thread-safe.
 *
 * @param name the audit's name, used in meters and logs; letters, digits, '.', '_' and '-', never {@code null}
 * @param table the business table, e.g. {@code t_ledger} or {@code ledger.t_ledger}, never {@code null}
 * @param keyColumn the business-key column, e.g. {@code order_id}, never {@code null}
 * @param filter a trusted boolean SQL expression restricting the rows audited, or {@code null} for all rows
 * @param interval how often the audit runs on its schedule, positive, never {@code null}
 * @since 0.1.0
 */
public record AuditDefinition(String name, String table, String keyColumn, @Nullable String filter,
		Duration interval) {

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

	private static final Pattern TABLE = Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

	/**
	 * Create a definition.
	 * @throws IllegalArgumentException if the name, table or column is not a valid identifier, the filter holds a
	 * statement separator or a comment, or the interval is not positive
	 * @throws NullPointerException if a required component is {@code null}
	 */
	public AuditDefinition {
		Objects.requireNonNull(name, "name must not be null");
		Objects.requireNonNull(interval, "interval must not be null");
		require(NAME.matcher(name).matches(), name, "its name '" + name + "' must be letters, digits, '.', '_' or '-'");
		require(table != null && TABLE.matcher(table).matches(), name, "table '" + table
				+ "' must be an unquoted identifier (letters, digits, underscores), optionally 'schema.table'");
		require(keyColumn != null && COLUMN.matcher(keyColumn).matches(), name,
				"key column '" + keyColumn + "' must be an unquoted identifier (letters, digits, underscores)");
		if (filter != null && filter.isBlank()) {
			filter = null;
		}
		require(filter == null || !(filter.contains(";") || filter.contains("--") || filter.contains("/*")), name,
				"filter must be one SQL expression, without ';', '--' or '/*'");
		require(!interval.isNegative() && !interval.isZero(), name, "interval must be positive");
	}

	private static void require(boolean valid, String name, String problem) {
		if (!valid) {
			throw new IllegalArgumentException("Invalid audit '" + name + "': " + problem);
		}
	}

}
