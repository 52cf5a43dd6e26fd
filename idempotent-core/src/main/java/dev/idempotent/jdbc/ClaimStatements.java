package dev.idempotent.jdbc;

import java.util.Collections;

/**
 * The SQL of the claim store for one table, rendered once. The table name is the only part written into the
 * text and it is a validated {@link TableName}; every value is a bind parameter.
 *
 * @param insert claims a new key, inserting it as SUCCEEDED (it becomes visible only when the caller's transaction
 * commits, with the business write): binds scope, key, source topic, partition, offset, created, updated; 1 row
 * claimed, 0 rows (or a duplicate-key error, depending on the dialect) a duplicate
 * @param reclaim takes over a FAILED row, making it SUCCEEDED as of the caller's commit: binds source topic,
 * partition, offset, updated, scope, key
 * @param read reads an existing row with a locking (current) read where the dialect needs one: binds scope, key;
 * returns status, created_at
 * @param markFailed marks an existing row FAILED unless it SUCCEEDED or holds a live lease: binds attempts, last
 * error, updated, scope, key, now
 * @param insertFailed inserts a FAILED row: binds scope, key, attempts, last error, created, updated
 * @param table the table name, for the statements whose length depends on the batch
 * @param insertSuffix the dialect's suffix of claim INSERTs
 */
record ClaimStatements(String insert, String reclaim, String read, String markFailed,
		String insertFailed, String table, String insertSuffix) {

	private static final String INSERT_COLUMNS = " (scope, idempotency_key, status, attempts, source_topic,"
			+ " source_partition, source_offset, created_at, updated_at) VALUES ";

	private static final String INSERT_ROW = "(?, ?, 1, 1, ?, ?, ?, ?, ?)";

	/**
	 * A multi-row claim INSERT that reports which rows it inserted, for dialects with {@code ON CONFLICT ... DO
	 * NOTHING RETURNING}: binds per row scope, key, source topic, partition, offset, created, updated.
	 * @param rows the number of rows, 1 or more
	 * @return the statement
	 */
	String insertReturning(int rows) {
		return insertAll(rows) + this.insertSuffix + " RETURNING scope, idempotency_key";
	}

	/**
	 * A multi-row claim INSERT without a conflict clause: all rows or, on a duplicate, none (the statement is
	 * atomic). Binds per row scope, key, source topic, partition, offset, created, updated.
	 * @param rows the number of rows, 1 or more
	 * @return the statement
	 */
	String insertAll(int rows) {
		return "INSERT INTO " + this.table + INSERT_COLUMNS + String.join(", ", Collections.nCopies(rows, INSERT_ROW));
	}

	/**
	 * A plain (non-locking) read of the rows of several keys of one scope that the transaction can see: binds
	 * scope, then each key; returns key, status, created_at.
	 * @param keys the number of keys, 1 or more
	 * @return the statement
	 */
	String readVisible(int keys) {
		return "SELECT idempotency_key, status, created_at FROM " + this.table + " WHERE scope = ?"
				+ " AND idempotency_key IN (" + String.join(", ", Collections.nCopies(keys, "?")) + ")";
	}

	static ClaimStatements forTable(TableName table, SqlDialect dialect) {
		String t = table.value();
		return new ClaimStatements("INSERT INTO " + t + INSERT_COLUMNS + INSERT_ROW + dialect.insertSuffix(),
				"UPDATE " + t + " SET status = 1, attempts = attempts + 1, source_topic = ?, source_partition = ?,"
						+ " source_offset = ?, updated_at = ?, last_error = NULL"
						+ " WHERE scope = ? AND idempotency_key = ? AND status = 2",
				"SELECT status, created_at FROM " + t + " WHERE scope = ? AND idempotency_key = ?"
						+ dialect.lockingReadSuffix(),
				"UPDATE " + t + " SET status = 2, attempts = attempts + ?, last_error = ?, updated_at = ?"
						+ " WHERE scope = ? AND idempotency_key = ?"
						+ " AND (status = 2 OR (status = 0 AND (lease_until IS NULL OR lease_until < ?)))",
				"INSERT INTO " + t + " (scope, idempotency_key, status, attempts, last_error, created_at, updated_at)"
						+ " VALUES (?, ?, 2, ?, ?, ?, ?)" + dialect.insertSuffix(), t, dialect.insertSuffix());
	}

}
