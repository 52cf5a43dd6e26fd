package dev.idempotent.benchmarks.layout;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.idempotent.jdbc.TableName;

/**
 * The claim statements of one layout's table on MariaDB or PostgreSQL, worded as the library words its own (the
 * layout changes only the key columns and the unique index): a multi-row INSERT that skips taken keys, and a read of
 * the rows of several keys of one scope. Each run counts the rows its statement inserted or found.
 *
 * @param layout the layout of the table
 * @param table the table
 * @param postgres whether the database is PostgreSQL (otherwise MariaDB)
 */
public record LayoutClaims(ClaimLayout layout, TableName table, boolean postgres) {

	/**
	 * Prepare a claim INSERT of some rows that skips taken keys ({@code INSERT IGNORE}, {@code ON CONFLICT DO
	 * NOTHING}): the least one (the columns the DDL requires), or with the source columns, or also returning the
	 * inserted keys. Run it with {@link #insert}.
	 * @param connection the connection
	 * @param rows the number of rows
	 * @param source whether it writes the source columns
	 * @param returning whether it returns the inserted keys
	 * @return the statement
	 * @throws SQLException if it cannot be prepared
	 */
	public PreparedStatement prepareInsert(Connection connection, int rows, boolean source, boolean returning)
			throws SQLException {
		String row = "(" + this.layout.keyPlaceholders() + ", 1, 1, " + (source ? "?, ?, ?, " : "") + "?, ?)";
		String sql = (this.postgres ? "INSERT INTO " : "INSERT IGNORE INTO ") + this.table + " ("
				+ this.layout.keyColumns() + ", status, attempts, "
				+ (source ? "source_topic, source_partition, source_offset, " : "") + "created_at, updated_at) VALUES "
				+ String.join(", ", Collections.nCopies(rows, row))
				+ (this.postgres ? " ON CONFLICT (" + this.layout.uniqueColumns() + ") DO NOTHING" : "")
				+ (returning ? " RETURNING " + this.layout.uniqueColumns() : "");
		return connection.prepareStatement(sql);
	}

	/**
	 * Run a claim INSERT of {@link #prepareInsert} for keys of one scope.
	 * @param ps the statement, prepared for as many rows as keys
	 * @param scope the scope
	 * @param keys the keys
	 * @param source whether the statement writes the source columns
	 * @return the rows it inserted
	 * @throws SQLException on a database error
	 */
	public int insert(PreparedStatement ps, String scope, List<String> keys, boolean source) throws SQLException {
		// execute, not executeQuery: mysql-connector-j refuses executeQuery for an INSERT, even with RETURNING
		if (!bind(ps, scope, keys, source).execute()) {
			return ps.getUpdateCount();
		}
		return count(ps.getResultSet());
	}

	/**
	 * Run a claim INSERT of {@link #prepareInsert} that returns the inserted keys, for keys of one scope.
	 * @param ps the statement, prepared with {@code returning} for as many rows as keys
	 * @param scope the scope
	 * @param keys the keys
	 * @param source whether the statement writes the source columns
	 * @return the keys it inserted, never {@code null}
	 * @throws SQLException on a database error
	 * @throws IllegalArgumentException if the statement returns no rows' keys (prepared without {@code returning})
	 */
	public Set<String> insertedKeys(PreparedStatement ps, String scope, List<String> keys, boolean source)
			throws SQLException {
		if (!bind(ps, scope, keys, source).execute()) {
			throw new IllegalArgumentException("The claim INSERT was prepared without RETURNING");
		}
		Map<ByteBuffer, String> byDigest = new HashMap<>();
		if (this.layout == ClaimLayout.DIGEST) {
			keys.forEach((key) -> byDigest.put(ByteBuffer.wrap(ClaimLayout.digest(scope, key)), key));
		}
		Set<String> inserted = new HashSet<>();
		try (ResultSet rs = ps.getResultSet()) {
			while (rs.next()) {
				// RETURNING scope, idempotency_key (text) or key_digest (digest)
				inserted.add((this.layout == ClaimLayout.TEXT) ? rs.getString(2)
						: byDigest.get(ByteBuffer.wrap(rs.getBytes(1))));
			}
		}
		return inserted;
	}

	private PreparedStatement bind(PreparedStatement ps, String scope, List<String> keys, boolean source)
			throws SQLException {
		Timestamp now = Timestamp.valueOf(LocalDateTime.now());
		int index = 1;
		for (String key : keys) {
			index = this.layout.bindKey(ps, index, scope, key);
			if (source) {
				ps.setString(index++, "bench");
				ps.setInt(index++, 0);
				ps.setLong(index++, key.hashCode() & 0xffffffL);
			}
			ps.setTimestamp(index++, now);
			ps.setTimestamp(index++, now);
		}
		return ps;
	}

	/**
	 * Prepare a read of the rows of several keys of one scope, the columns a claim reads, a locking read (MariaDB) or
	 * a plain one. Run it with {@link #read}.
	 * @param connection the connection
	 * @param keys the number of keys
	 * @param locking whether it is a shared locking read ({@code LOCK IN SHARE MODE}, MariaDB only)
	 * @return the statement
	 * @throws SQLException if it cannot be prepared
	 */
	public PreparedStatement prepareRead(Connection connection, int keys, boolean locking) throws SQLException {
		return connection.prepareStatement("SELECT idempotency_key, status, created_at, source_topic,"
				+ " source_partition, source_offset FROM " + this.table + " WHERE " + this.layout.lookup(keys)
				+ (locking ? " LOCK IN SHARE MODE" : ""));
	}

	/**
	 * Run a read of {@link #prepareRead}.
	 * @param ps the statement, prepared for as many keys
	 * @param scope the scope
	 * @param keys the keys
	 * @return the rows it found
	 * @throws SQLException on a database error
	 */
	public int read(PreparedStatement ps, String scope, List<String> keys) throws SQLException {
		this.layout.bindLookup(ps, 1, scope, keys);
		return count(ps.executeQuery());
	}

	private static int count(ResultSet results) throws SQLException {
		try (ResultSet rs = results) {
			int rows = 0;
			while (rs.next()) {
				rows++;
			}
			return rows;
		}
	}

}
