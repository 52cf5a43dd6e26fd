package dev.idempotent.output;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.jdbc.ColumnTime;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

/**
 * An {@link OutputStore} on a table of its own in the business database (DDL: {@code sql/schema-<db>-output.sql}),
 * one row per output, keyed by (scope, idempotency_key, sequence_no). Statements run through a {@link JdbcTemplate}
 * on the business {@link DataSource}, so they join the transaction bound to it (the claim's). Times are UTC on the
 * given clock. Thread-safe.
 *
 * @since 0.1.0
 */
public final class JdbcOutputStore implements OutputStore {

	/** The most keys one statement of {@link #loadAll} binds. */
	public static final int MAX_KEYS = 500;

	private final JdbcTemplate jdbc;

	private final SqlDialect dialect;

	private final Clock clock;

	private final String insert;

	private final String select;

	private final String selectAllPrefix;

	private final String selectKeysPrefix;

	private final String selectPage;

	private final String selectSizesPrefix;

	/**
	 * Create a store.
	 * @param dataSource the business database, never {@code null}
	 * @param table the output table, never {@code null}
	 * @param dialect the database's dialect
	 * @param clock the clock of the created time; its zone is ignored
	 */
	public JdbcOutputStore(DataSource dataSource, TableName table, SqlDialect dialect, Clock clock) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.dialect = dialect;
		this.clock = clock;
		this.insert = "INSERT INTO " + table + " (scope, idempotency_key, sequence_no, topic, target_partition,"
				+ " record_key, record_value, headers, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
		this.select = "SELECT topic, target_partition, record_key, record_value, headers FROM " + table
				+ " WHERE scope = ? AND idempotency_key = ? ORDER BY sequence_no";
		this.selectAllPrefix = "SELECT idempotency_key, sequence_no, topic, target_partition, record_key, record_value,"
				+ " headers FROM " + table + " WHERE scope = ? AND idempotency_key IN (";
		this.selectKeysPrefix = "SELECT DISTINCT idempotency_key FROM " + table + " WHERE scope = ? AND idempotency_key IN (";
		this.selectPage = "SELECT topic, target_partition, record_key, record_value, headers FROM " + table
				+ " WHERE scope = ? AND idempotency_key = ? AND sequence_no >= ? ORDER BY sequence_no LIMIT ?";
		this.selectSizesPrefix = "SELECT idempotency_key, SUM(COALESCE(OCTET_LENGTH(record_key), 0)"
				+ " + COALESCE(OCTET_LENGTH(record_value), 0) + COALESCE(OCTET_LENGTH(headers), 0)) FROM " + table
				+ " WHERE scope = ? AND idempotency_key IN (";
	}

	@Override
	public void store(ClaimRequest claim, int firstSequence, List<StoredOutput> outputs) {
		if (outputs.isEmpty()) {
			return;
		}
		LocalDateTime now = ColumnTime.of(this.clock.instant());
		this.jdbc.batchUpdate(this.insert, new BatchPreparedStatementSetter() {

			@Override
			public void setValues(PreparedStatement ps, int i) throws SQLException {
				StoredOutput output = outputs.get(i);
				ps.setString(1, claim.scope());
				ps.setString(2, claim.key());
				ps.setInt(3, firstSequence + i);
				ps.setString(4, output.topic());
				if (output.partition() != null) {
					ps.setInt(5, output.partition());
				}
				else {
					ps.setNull(5, Types.INTEGER);
				}
				setBytes(ps, 6, output.key());
				setBytes(ps, 7, output.value());
				setBytes(ps, 8, HeaderCodec.encode(output.headers()));
				JdbcOutputStore.this.dialect.bindTime(ps, 9, now);
			}

			@Override
			public int getBatchSize() {
				return outputs.size();
			}

		});
	}

	@Override
	public List<StoredOutput> load(String scope, String key) {
		return this.jdbc.query(this.select, (rs, row) -> output(rs, 1), scope, key);
	}

	@Override
	public List<StoredOutput> load(String scope, String key, int fromSequence, int maxCount) {
		return this.jdbc.query(this.selectPage, (rs, row) -> output(rs, 1), scope, key, fromSequence, maxCount);
	}

	/** One statement per up to {@value #MAX_KEYS} distinct keys; the sizes are the database's, read from its rows. */
	@Override
	public Map<String, Long> sizes(String scope, Collection<String> keys) {
		List<String> distinct = List.copyOf(new LinkedHashSet<>(keys));
		Map<String, Long> sizes = new HashMap<>();
		for (int from = 0; from < distinct.size(); from += MAX_KEYS) {
			List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + MAX_KEYS));
			this.jdbc.query(this.selectSizesPrefix + placeholders(chunk.size()) + " GROUP BY idempotency_key",
					(RowCallbackHandler) (rs) -> sizes.merge(rs.getString(1), rs.getLong(2), Long::sum),
					arguments(scope, chunk));
		}
		return sizes;
	}

	/** Loads up to {@value #MAX_KEYS} distinct keys per statement; the rows are put in order by sequence number. */
	@Override
	public Map<String, List<StoredOutput>> loadAll(String scope, Collection<String> keys) {
		List<String> distinct = List.copyOf(new LinkedHashSet<>(keys));
		Map<String, List<StoredOutput>> outputs = new HashMap<>();
		distinct.forEach((key) -> outputs.put(key, new ArrayList<>()));
		for (int from = 0; from < distinct.size(); from += MAX_KEYS) {
			List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + MAX_KEYS));
			Map<String, SortedMap<Integer, StoredOutput>> rows = new HashMap<>();
			this.jdbc.query(this.selectAllPrefix + placeholders(chunk.size()),
					(RowCallbackHandler) (rs) -> rows.computeIfAbsent(rs.getString(1), (k) -> new TreeMap<>())
						.put(rs.getInt(2), output(rs, 3)),
					arguments(scope, chunk));
			rows.forEach((key, sequence) -> {
				List<StoredOutput> loaded = outputs.get(key);
				if (loaded != null) { // exactly a key asked for (the DDL's collation compares exactly)
					loaded.addAll(sequence.values());
				}
			});
		}
		return outputs;
	}

	/**
	 * One statement per up to {@value #MAX_KEYS} distinct keys, read from the primary key's index. Should the table
	 * return a key that was not asked for (a collation that does not compare exactly), every key of that statement
	 * is reported as having outputs: the answer keeps keys out of the fast path, so it errs on that side.
	 */
	@Override
	public Set<String> keysWithOutputs(String scope, Collection<String> keys) {
		List<String> distinct = List.copyOf(new LinkedHashSet<>(keys));
		Set<String> found = new HashSet<>();
		for (int from = 0; from < distinct.size(); from += MAX_KEYS) {
			List<String> chunk = distinct.subList(from, Math.min(distinct.size(), from + MAX_KEYS));
			Set<String> returned = new HashSet<>();
			this.jdbc.query(this.selectKeysPrefix + placeholders(chunk.size()),
					(RowCallbackHandler) (rs) -> returned.add(rs.getString(1)), arguments(scope, chunk));
			if (chunk.containsAll(returned)) {
				found.addAll(returned);
			}
			else {
				found.addAll(chunk);
			}
		}
		return found;
	}

	private static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?")) + ")";
	}

	private static Object[] arguments(String scope, List<String> keys) {
		Object[] arguments = new Object[keys.size() + 1];
		arguments[0] = scope;
		for (int i = 0; i < keys.size(); i++) {
			arguments[i + 1] = keys.get(i);
		}
		return arguments;
	}

	/** The output in the columns topic, target_partition, record_key, record_value, headers from {@code first}. */
	private static StoredOutput output(ResultSet rs, int first) throws SQLException {
		int partition = rs.getInt(first + 1);
		Integer chosen = rs.wasNull() ? null : partition;
		return new StoredOutput(rs.getString(first), chosen, rs.getBytes(first + 2), rs.getBytes(first + 3),
				HeaderCodec.decode(rs.getBytes(first + 4)));
	}

	private static void setBytes(PreparedStatement ps, int index, byte @Nullable [] bytes) throws SQLException {
		if (bytes != null) {
			ps.setBytes(index, bytes);
		}
		else {
			ps.setNull(index, Types.VARBINARY);
		}
	}

}
