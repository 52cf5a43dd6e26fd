package dev.idempotent.jdbc;

/**
 * The read-only SQL of {@link ClaimInspector} for one table, rendered once. The table name is the only part written
 * into the text and it is a validated {@link TableName}; every value is a bind parameter.
 *
 * @param probe a lookup of one (scope, key) through the unique index: binds scope, key; proves that the table
 * answers without reading more than an index entry
 * @param find the row of one key: binds scope, key; returns the {@link #COLUMNS}
 * @param failed one page of FAILED rows of every scope, most recently updated first: binds the dialect's page
 * clause; returns the {@link #COLUMNS}
 * @param failedInScope one page of FAILED rows of one scope: binds scope, then the page clause
 */
record InspectionStatements(String probe, String find, String failed, String failedInScope) {

	/** The columns {@link #find}, {@link #failed} and {@link #failedInScope} return, in this order. */
	static final String COLUMNS = "scope, idempotency_key, status, attempts, source_topic, source_partition,"
			+ " source_offset, created_at, updated_at, lease_until, last_error";

	static InspectionStatements forTable(TableName table, SqlDialect dialect) {
		String from = " FROM " + table.value();
		String byKey = " WHERE scope = ? AND idempotency_key = ?";
		String newestFirst = " ORDER BY updated_at DESC, id DESC" + dialect.pageClause();
		return new InspectionStatements("SELECT status" + from + byKey, "SELECT " + COLUMNS + from + byKey,
				"SELECT " + COLUMNS + from + " WHERE status = 2" + newestFirst,
				"SELECT " + COLUMNS + from + " WHERE status = 2 AND scope = ?" + newestFirst);
	}

}
