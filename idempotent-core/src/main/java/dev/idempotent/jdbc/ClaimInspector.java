package dev.idempotent.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * Read-only queries over the idempotency table for operators: a cheap probe, the row of one key, and pages of
 * FAILED rows. Each call borrows a connection (or joins the transaction bound to the thread) and writes nothing.
 * Times are read as the UTC wall-clock values the stores write and returned as instants. Thread-safe.
 * <p>The FAILED pages filter on {@code status}, which the shipped DDL does not index: on a large table each page
 * scans it. They are meant for an operator's occasional look, not for polling.
 *
 * @since 0.1.0
 */
public final class ClaimInspector {

	/** The largest page {@link #failed} returns. */
	public static final int MAX_PAGE_SIZE = 500;

	private static final RowMapper<ClaimRow> ROWS = ClaimInspector::row;

	private final JdbcTemplate jdbc;

	private final TableName table;

	private final SqlDialect dialect;

	private final InspectionStatements statements;

	/**
	 * Create an inspector.
	 * @param dataSource the business database, never {@code null}
	 * @param table the idempotency table, never {@code null}
	 * @param dialect the database's dialect, never {@code null}
	 */
	public ClaimInspector(DataSource dataSource, TableName table, SqlDialect dialect) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.table = table;
		this.dialect = dialect;
		this.statements = InspectionStatements.forTable(table, dialect);
	}

	/**
	 * Return the inspected table.
	 * @return the table name
	 */
	public TableName getTable() {
		return this.table;
	}

	/**
	 * Return the dialect the queries are written for.
	 * @return the dialect
	 */
	public SqlDialect getDialect() {
		return this.dialect;
	}

	/**
	 * Look one (scope, key) pair up through the unique index, to prove that the table answers. Reads at most one
	 * index entry.
	 * @throws org.springframework.dao.DataAccessException if the query fails (no connection, no such table or
	 * column, ...)
	 */
	public void probe() {
		this.jdbc.query(this.statements.probe(), (rs) -> null, "", "");
	}

	/**
	 * Read the row of one key.
	 * @param scope the scope, never {@code null}
	 * @param key the idempotency key, compared byte for byte, never {@code null}
	 * @return the row, or empty if the key has no row in that scope
	 * @throws org.springframework.dao.DataAccessException if the query fails
	 */
	public Optional<ClaimRow> find(String scope, String key) {
		return this.jdbc.query(this.statements.find(), ROWS, scope, key).stream().findFirst();
	}

	/**
	 * Read FAILED rows, most recently updated first (ties broken by the row id, newest first), from a position.
	 * @param scope only rows of this scope, or {@code null} for every scope
	 * @param offset how many rows to skip, 0 or more
	 * @param limit how many rows to return at most, 1 to {@value #MAX_PAGE_SIZE}
	 * @return up to {@code limit} rows, never {@code null}
	 * @throws IllegalArgumentException if {@code offset} is negative or {@code limit} is out of range
	 * @throws org.springframework.dao.DataAccessException if the query fails
	 */
	public List<ClaimRow> failed(@Nullable String scope, long offset, int limit) {
		if (offset < 0) {
			throw new IllegalArgumentException("offset must be 0 or more, was " + offset);
		}
		if (limit < 1 || limit > MAX_PAGE_SIZE) {
			throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE_SIZE + ", was " + limit);
		}
		if (scope == null) {
			return this.jdbc.query(this.statements.failed(), (ps) -> this.dialect.bindPage(ps, 1, offset, limit), ROWS);
		}
		return this.jdbc.query(this.statements.failedInScope(), (ps) -> {
			ps.setString(1, scope);
			this.dialect.bindPage(ps, 2, offset, limit);
		}, ROWS);
	}

	private static ClaimRow row(ResultSet rs, int rowNum) throws SQLException {
		String topic = rs.getString("source_topic");
		int partition = rs.getInt("source_partition");
		boolean hasPartition = !rs.wasNull();
		long offset = rs.getLong("source_offset");
		boolean hasOffset = !rs.wasNull();
		DeliverySource source = (topic != null && hasPartition && hasOffset)
				? new DeliverySource(topic, partition, offset) : null;
		return new ClaimRow(rs.getString("scope"), rs.getString("idempotency_key"),
				ClaimStatus.fromCode(rs.getInt("status")), rs.getInt("attempts"), source,
				required(rs, "created_at"), required(rs, "updated_at"),
				TransactionalJdbc.utc(rs.getObject("lease_until", LocalDateTime.class)), rs.getString("last_error"));
	}

	private static Instant required(ResultSet rs, String column) throws SQLException {
		Instant time = TransactionalJdbc.utc(rs.getObject(column, LocalDateTime.class));
		if (time == null) {
			throw new SQLException("Column " + column + " of an idempotency row is NULL; the shipped DDL declares it"
					+ " NOT NULL");
		}
		return time;
	}

}
