package dev.idempotent.jdbc;

import java.util.regex.Pattern;

/**
 * A validated SQL table name, optionally qualified by a schema ({@code schema.table}). Each part is an
 * unquoted identifier of at most 63 characters: a letter or underscore, then letters, digits or underscores.
 * Table names come from configuration and are written into SQL text, so anything else is refused: this is
 * what keeps SQL injection out. Values are always bind parameters.
 *
 * @param value the name as written in SQL, never {@code null}
 * @since 0.1.0
 */
public record TableName(String value) {

	/** The default table name, as in the shipped DDL. */
	public static final String DEFAULT = "idempotent_claim";

	/** The default name of the archive table, as in the shipped archive DDL: the table's name plus {@value #ARCHIVE_SUFFIX}. */
	public static final String DEFAULT_ARCHIVE = DEFAULT + "_archive";

	/** What the default name of an archive table adds to its table's name. */
	public static final String ARCHIVE_SUFFIX = "_archive";

	/**
	 * What the default name of an output table adds to its claim table's name.
	 * @since 0.1.0
	 */
	public static final String OUTPUT_SUFFIX = "_output";

	/**
	 * The default name of the output table, as in the shipped output DDL: the table's name plus
	 * {@value #OUTPUT_SUFFIX}.
	 * @since 0.1.0
	 */
	public static final String DEFAULT_OUTPUT = DEFAULT + OUTPUT_SUFFIX;

	/**
	 * What the default name of an offset table adds to its claim table's name.
	 * @since 0.1.0
	 */
	public static final String OFFSET_SUFFIX = "_offset";

	/**
	 * The default name of the offset table, as in the shipped offset DDL: the table's name plus
	 * {@value #OFFSET_SUFFIX}.
	 * @since 0.1.0
	 */
	public static final String DEFAULT_OFFSET = DEFAULT + OFFSET_SUFFIX;

	private static final Pattern VALID = Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	/**
	 * Create a table name.
	 * @throws IllegalArgumentException if the name is not a plain identifier, optionally schema-qualified
	 */
	public TableName {
		if (value == null || !VALID.matcher(value).matches()) {
			throw new IllegalArgumentException("Invalid idempotency table name '" + value
					+ "': use letters, digits and underscores, starting with a letter or underscore, "
					+ "at most 63 characters, optionally prefixed by 'schema.'");
		}
	}

	/**
	 * Return the table name without its schema.
	 * @return the unqualified name
	 */
	public String simpleName() {
		return this.value.substring(this.value.indexOf('.') + 1);
	}

	/**
	 * Return the default name of this table's archive: the same schema, the name plus {@value #ARCHIVE_SUFFIX}.
	 * @return the archive table's name
	 * @throws IllegalArgumentException if the name becomes longer than an identifier may be
	 */
	public TableName archive() {
		return new TableName(this.value + ARCHIVE_SUFFIX);
	}

	/**
	 * Return the default name of the table holding this claim table's outputs: the same schema, the name plus
	 * {@value #OUTPUT_SUFFIX}.
	 * @return the output table's name
	 * @throws IllegalArgumentException if the name becomes longer than an identifier may be
	 * @since 0.1.0
	 */
	public TableName outputs() {
		return new TableName(this.value + OUTPUT_SUFFIX);
	}

	/**
	 * Return the default name of the table holding the consumed offsets stored with this claim table's claims: the same
	 * schema, the name plus {@value #OFFSET_SUFFIX}.
	 * @return the offset table's name
	 * @throws IllegalArgumentException if the name becomes longer than an identifier may be
	 * @since 0.1.0
	 */
	public TableName offsets() {
		return new TableName(this.value + OFFSET_SUFFIX);
	}

	@Override
	public String toString() {
		return this.value;
	}

}
