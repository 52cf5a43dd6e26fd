package dev.idempotent.retention;

import java.util.Collections;
import java.util.List;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the retention job for one table, rendered once (the id lists of the archive and delete statements are
 * rendered per batch). Table names are validated {@link TableName}s; the cutoff, the batch size and the ids are bind
 * parameters. Status codes are the store's constants (1 = SUCCEEDED, 2 = FAILED), written as literals so that the
 * planner sees them.
 * <p>Every statement reads an index range and nothing else, whatever the size of the table:
 * <ul>
 * <li>each selection of a batch reads the index on {@code (status, updated_at)} (shipped in every DDL as
 * {@code ix_<table>_status_updated}) from the start of one status up to the cutoff, in index order, and stops after
 * the batch: with nothing due it reads no row at all. One statement per status, because a selection of two statuses
 * ordered by time would have to sort every due row of both before returning the first;</li>
 * <li>rows are copied by primary key, up to {@value #MAX_IDS} ids per {@code INSERT ... SELECT ... WHERE id IN
 * (...)}, which reads without locks in the job's READ COMMITTED transaction;</li>
 * <li>on PostgreSQL and H2 rows are deleted the same way. On MySQL and MariaDB, InnoDB plans a
 * {@code DELETE ... WHERE id IN (...)} of a small table as a scan, and a scanning DELETE waits for every row another
 * transaction holds, even rows it will not delete (a claim in progress then blocks the job until its lock-wait
 * timeout); single-table DELETE takes no index hint. There the ids are bound as one JSON array, turned into rows by
 * {@code JSON_TABLE} (MySQL 8, MariaDB 10.6) and joined first ({@code STRAIGHT_JOIN}) to the idempotency table, which
 * is then read by primary key only ({@code eq_ref}); one parameter also keeps the statement short to parse.</li>
 * </ul>
 *
 * @param lockBatches per status removed, SUCCEEDED first: selects and locks the ids of at most one batch of old rows,
 * oldest first, skipping rows locked elsewhere; binds the cutoff (UTC), then the row limit; returns id, scope and
 * key (the scope and key find a claim's stored outputs)
 * @param archivePrefix the archive INSERT up to its id list; {@code null} in DELETE mode
 * @param deletePrefix the DELETE up to its id list
 * @param deleteJoinsIds whether the DELETE binds the ids as one JSON array joined to the table (MySQL, MariaDB)
 * instead of listing them in {@code id IN (...)}
 * @param table the idempotency table
 * @param deleteOutputs deletes the stored outputs of one claim: binds its scope, then its key; {@code null} when
 * outputs are not stored
 */
record RetentionStatements(List<String> lockBatches, @Nullable String archivePrefix, String deletePrefix,
		boolean deleteJoinsIds, TableName table, @Nullable String deleteOutputs) {

	/** The most ids one archive or delete statement binds. */
	static final int MAX_IDS = 1000;

	private static final String COLUMNS = "id, scope, idempotency_key, status, attempts, source_topic,"
			+ " source_partition, source_offset, created_at, updated_at, lease_until, last_error";

	/** The columns copied when payload fingerprints are on (tables created before them may lack the column). */
	private static final String COLUMNS_WITH_FINGERPRINT = COLUMNS + ", payload_fingerprint";

	static RetentionStatements of(TableName table, @Nullable TableName archive, SqlDialect dialect,
			boolean includeFailed, boolean fingerprints) {
		List<Integer> statuses = includeFailed ? List.of(1, 2) : List.of(1);
		// H2 locks every row it sorts, not only those it returns, so that concurrent jobs would find nothing to take:
		// there the index range is read in its own order without ORDER BY (the same order, by updated_at)
		String order = (dialect == SqlDialect.H2) ? "" : " ORDER BY updated_at";
		List<String> lockBatches = statuses.stream()
			.map((status) -> "SELECT id, scope, idempotency_key FROM " + table + " WHERE status = " + status
					+ " AND updated_at < ?" + order + dialect.lockBatchClause())
			.toList();
		String columns = fingerprints ? COLUMNS_WITH_FINGERPRINT : COLUMNS;
		String archivePrefix = (archive != null)
				? "INSERT INTO " + archive + " (" + columns + ") SELECT " + columns + " FROM " + table + " WHERE id IN ("
				: null;
		boolean joinsIds = dialect.needsBinaryCollation();
		String deletePrefix = joinsIds ? "DELETE t FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS ids"
				+ " STRAIGHT_JOIN " + table + " AS t ON t.id = ids.id" : "DELETE FROM " + table + " WHERE id IN (";
		return new RetentionStatements(lockBatches, archivePrefix, deletePrefix, joinsIds, table, null);
	}

	/**
	 * Render the archive statement of {@code ids} ids.
	 * @param ids how many ids it binds, 1 to {@value #MAX_IDS}
	 * @return the statement, or {@code null} in DELETE mode
	 */
	@Nullable String archiveRows(int ids) {
		return (this.archivePrefix != null) ? this.archivePrefix + placeholders(ids) : null;
	}

	/**
	 * Render the delete statement of {@code ids} ids.
	 * @param ids how many ids it binds, 1 to {@value #MAX_IDS}
	 * @return the statement; when {@link #deleteJoinsIds()} it binds one parameter, the ids as a JSON array
	 */
	String deleteRows(int ids) {
		return this.deleteJoinsIds ? this.deletePrefix : this.deletePrefix + placeholders(ids);
	}

	private static String placeholders(int ids) {
		return String.join(", ", Collections.nCopies(ids, "?")) + ")";
	}

	/**
	 * Return these statements, also deleting the stored outputs of each removed claim.
	 * @param outputs the output table
	 */
	RetentionStatements withOutputs(TableName outputs) {
		return new RetentionStatements(this.lockBatches, this.archivePrefix, this.deletePrefix, this.deleteJoinsIds,
				this.table, "DELETE FROM " + outputs + " WHERE scope = ? AND idempotency_key = ?");
	}

}
