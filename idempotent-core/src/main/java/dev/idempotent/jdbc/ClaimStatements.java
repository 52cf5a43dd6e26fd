package dev.idempotent.jdbc;

import java.util.Collections;

/**
 * The SQL of the claim store for one table, rendered once. The table name is the only part written into the
 * text and it is a validated {@link TableName}; every value is a bind parameter.
 *
 * With payload fingerprints on, claim INSERTs also bind the fingerprint after the updated time, a reclaim sets it
 * after the updated time, and reads return it after the source columns.
 *
 * @param insert claims a new key, inserting it as SUCCEEDED (it becomes visible only when the caller's transaction
 * commits, with the business write): binds scope, key, source topic, partition, offset, created, updated
 * [, fingerprint]; rendered by {@link SqlDialect#claimInsert}, whose result {@link ClaimInsert#run} reads
 * @param reclaim takes over a FAILED row, making it SUCCEEDED as of the caller's commit: binds source topic,
 * partition, offset, updated [, fingerprint], scope, key
 * @param read reads an existing row with a locking (current) read where the dialect needs one: binds scope, key;
 * returns status, created_at, source topic, partition, offset [, payload_fingerprint]
 * @param markFailed marks an existing row FAILED unless it SUCCEEDED or holds a live lease: binds attempts, last
 * error, updated, scope, key, now
 * @param insertFailed inserts a FAILED row: binds scope, key, attempts, last error, created, updated; rendered by
 * {@link SqlDialect#claimInsert} (so that a key whose row exists raises no server error), read by
 * {@link ClaimInsert#run}
 * @param table the table name, for the statements whose length depends on the batch
 * @param insertSuffix the dialect's suffix of claim INSERTs
 * @param fingerprints whether the statements write and read the {@value #FINGERPRINT_COLUMN} column
 */
record ClaimStatements(String insert, String reclaim, String read, String markFailed,
		String insertFailed, String table, String insertSuffix, boolean fingerprints) {

	/** The source columns reads return, for telling a redelivery from a re-send (see {@code HitOrigin}). */
	static final String SOURCE_COLUMNS = "source_topic, source_partition, source_offset";

	/** The nullable column of payload fingerprints. */
	static final String FINGERPRINT_COLUMN = "payload_fingerprint";

	private static final String INSERT_COLUMNS = " (scope, idempotency_key, status, attempts, source_topic,"
			+ " source_partition, source_offset, created_at, updated_at";

	private static final String INSERT_ROW = "(?, ?, 1, 1, ?, ?, ?, ?, ?";

	/**
	 * Return how many parameters one row of a claim INSERT binds.
	 * @return 7, or 8 with fingerprints
	 */
	int insertParameters() {
		return this.fingerprints ? 8 : 7;
	}

	/**
	 * A multi-row claim INSERT that skips the rows of existing keys and reports which rows it inserted, for dialects
	 * with a {@link SqlDialect#skippingInsertVerb() skipping verb}: binds per row scope, key, source topic,
	 * partition, offset, created, updated [, fingerprint]; returns scope and key of each inserted row.
	 * @param verb the dialect's skipping verb
	 * @param rows the number of rows, 1 or more
	 * @return the statement
	 */
	String insertSkipping(String verb, int rows) {
		return insertRows(verb, rows) + this.insertSuffix + " RETURNING scope, idempotency_key";
	}

	/**
	 * A multi-row claim INSERT without a conflict clause: all rows or, on a duplicate, none (the statement is
	 * atomic). Binds per row scope, key, source topic, partition, offset, created, updated [, fingerprint].
	 * @param rows the number of rows, 1 or more
	 * @return the statement
	 */
	String insertAll(int rows) {
		return insertRows("INSERT INTO", rows);
	}

	private String insertRows(String verb, int rows) {
		return verb + " " + this.table + insertColumns(this.fingerprints)
				+ String.join(", ", Collections.nCopies(rows, insertRow(this.fingerprints)));
	}

	/**
	 * A plain (non-locking) read of the rows of several keys of one scope that the transaction can see: binds
	 * scope, then each key; returns key, status, created_at, source topic, partition, offset [, payload_fingerprint].
	 * @param keys the number of keys, 1 or more
	 * @return the statement
	 */
	String readVisible(int keys) {
		return "SELECT idempotency_key, status, created_at, " + SOURCE_COLUMNS + fingerprintRead(this.fingerprints) + " FROM " + this.table
				+ " WHERE scope = ?"
				+ " AND idempotency_key IN (" + String.join(", ", Collections.nCopies(keys, "?")) + ")";
	}

	static ClaimStatements forTable(TableName table, SqlDialect dialect, boolean fingerprints) {
		String t = table.value();
		return new ClaimStatements(
				dialect.claimInsert(t + insertColumns(fingerprints) + insertRow(fingerprints)),
				"UPDATE " + t + " SET status = 1, attempts = attempts + 1, source_topic = ?, source_partition = ?,"
						+ " source_offset = ?, updated_at = ?, last_error = NULL"
						+ (fingerprints ? ", " + FINGERPRINT_COLUMN + " = ?" : "")
						+ " WHERE scope = ? AND idempotency_key = ? AND status = 2",
				"SELECT status, created_at, " + SOURCE_COLUMNS + fingerprintRead(fingerprints) + " FROM " + t
						+ " WHERE scope = ? AND idempotency_key = ?" + dialect.lockingReadSuffix(),
				"UPDATE " + t + " SET status = 2, attempts = attempts + ?, last_error = ?, updated_at = ?"
						+ " WHERE scope = ? AND idempotency_key = ?"
						+ " AND (status = 2 OR (status = 0 AND (lease_until IS NULL OR lease_until < ?)))",
				dialect.claimInsert(t + " (scope, idempotency_key, status, attempts, last_error, created_at, updated_at)"
						+ " VALUES (?, ?, 2, ?, ?, ?, ?)"), t, dialect.insertSuffix(), fingerprints);
	}

	private static String insertColumns(boolean fingerprints) {
		return INSERT_COLUMNS + (fingerprints ? ", " + FINGERPRINT_COLUMN : "") + ") VALUES ";
	}

	private static String insertRow(boolean fingerprints) {
		return INSERT_ROW + (fingerprints ? ", ?)" : ")");
	}

	private static String fingerprintRead(boolean fingerprints) {
		return fingerprints ? ", " + FINGERPRINT_COLUMN : "";
	}

}
