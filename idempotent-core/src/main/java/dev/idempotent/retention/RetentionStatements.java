package dev.idempotent.retention;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the retention job for one table, rendered once. Table names are validated {@link TableName}s; the
 * cutoff, the batch size and the ids are bind parameters. Status codes are the store's constants (1 = SUCCEEDED,
 * 2 = FAILED).
 *
 * Rows are copied and deleted one primary key at a time (in a JDBC batch): a statement over a list of ids may be
 * planned as a scan of the table, and on InnoDB a scanning DELETE waits for every row another transaction holds,
 * even rows it will not delete.
 *
 * @param lockBatch selects and locks the ids of at most one batch of old rows, oldest id first, skipping rows
 * locked elsewhere: binds the cutoff (UTC), then the batch size; returns id
 * @param archiveRow copies one row by id into the archive, unchanged: binds the id; {@code null} in DELETE mode
 * @param deleteRow deletes one row by id: binds the id
 * @param table the idempotency table
 * @param deleteOutputs deletes the stored outputs of one claim: binds its scope, then its key; {@code null} when
 * outputs are not stored
 */
record RetentionStatements(String lockBatch, @Nullable String archiveRow, String deleteRow, TableName table,
		@Nullable String deleteOutputs) {

	private static final String COLUMNS = "id, scope, idempotency_key, status, attempts, source_topic,"
			+ " source_partition, source_offset, created_at, updated_at, lease_until, last_error";

	/** The columns copied when payload fingerprints are on (tables created before them may lack the column). */
	private static final String COLUMNS_WITH_FINGERPRINT = COLUMNS + ", payload_fingerprint";

	static RetentionStatements of(TableName table, @Nullable TableName archive, SqlDialect dialect,
			boolean includeFailed, boolean fingerprints) {
		String statuses = includeFailed ? "status IN (1, 2)" : "status = 1";
		String columns = fingerprints ? COLUMNS_WITH_FINGERPRINT : COLUMNS;
		String archiveRow = (archive != null) ? "INSERT INTO " + archive + " (" + columns + ") SELECT " + columns
				+ " FROM " + table + " WHERE id = ?" : null;
		return new RetentionStatements("SELECT id, scope, idempotency_key FROM " + table + " WHERE " + statuses + " AND updated_at < ?"
				+ " ORDER BY id" + dialect.lockBatchClause(), archiveRow, "DELETE FROM " + table + " WHERE id = ?",
				table, null);
	}

	/**
	 * Return these statements, also deleting the stored outputs of each removed claim.
	 * @param outputs the output table
	 */
	RetentionStatements withOutputs(TableName outputs) {
		return new RetentionStatements(this.lockBatch, this.archiveRow, this.deleteRow, this.table,
				"DELETE FROM " + outputs + " WHERE scope = ? AND idempotency_key = ?");
	}

}
