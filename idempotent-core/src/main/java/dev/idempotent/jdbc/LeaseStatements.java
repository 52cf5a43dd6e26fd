package dev.idempotent.jdbc;

/**
 * The SQL of leased claims for one table, rendered once; like {@link ClaimStatements}, only the validated table
 * name is written into the text.
 *
 * @param insert claims a new key with a lease: binds scope, key, source topic, partition, offset, created,
 * updated, lease until; rendered by {@link SqlDialect#claimInsert}, whose result {@link ClaimInsert#run} reads
 * @param read reads an existing row (status, attempts, lease until, created, source topic, partition and offset) with a
 * locking (current) read where the dialect needs one: binds scope, key;
 * returns status, attempts, lease_until, created_at
 * @param takeOver takes a FAILED row or an expired lease, fenced by the attempts read: binds lease until, source
 * topic, partition, offset, updated, scope, key, attempts, now
 * @param complete marks the lease's attempt SUCCEEDED: binds updated, scope, key, attempts
 * @param release marks the lease's attempt FAILED: binds last error, updated, scope, key, attempts
 */
record LeaseStatements(String insert, String read, String takeOver, String complete, String release) {

	static LeaseStatements forTable(TableName table, SqlDialect dialect) {
		String t = table.value();
		String key = " WHERE scope = ? AND idempotency_key = ?";
		return new LeaseStatements(
				dialect.claimInsert(t + " (scope, idempotency_key, status, attempts, source_topic, source_partition,"
						+ " source_offset, created_at, updated_at, lease_until) VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?, ?)"),
				"SELECT status, attempts, lease_until, created_at, " + ClaimStatements.SOURCE_COLUMNS + " FROM " + t + key + dialect.lockingReadSuffix(),
				"UPDATE " + t + " SET status = 0, attempts = attempts + 1, lease_until = ?, source_topic = ?,"
						+ " source_partition = ?, source_offset = ?, updated_at = ?, last_error = NULL" + key
						+ " AND attempts = ? AND (status = 2 OR (status = 0 AND (lease_until IS NULL OR lease_until < ?)))",
				"UPDATE " + t + " SET status = 1, lease_until = NULL, updated_at = ?" + key + " AND status = 0 AND attempts = ?",
				"UPDATE " + t + " SET status = 2, lease_until = NULL, last_error = ?, updated_at = ?" + key
						+ " AND status = 0 AND attempts = ?");
	}

}
