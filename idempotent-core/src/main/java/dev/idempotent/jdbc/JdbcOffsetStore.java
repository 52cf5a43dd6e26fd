package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.OptionalLong;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * The table of consumed offsets stored with the claims ({@code sql/schema-<dialect>-offset.sql}): one row per consumer
 * group and topic-partition holding the offset of the next record to consume. Reads use the connection of the current
 * transaction when there is one, else one of their own; {@link #advance} runs in the claim's transaction and moves the
 * row only from the value the caller expects, so that a consumer never continues from a position the database does not
 * hold. Thread-safe.
 *
 * @since 0.1.0
 */
public final class JdbcOffsetStore {

	private final DataSource dataSource;

	private final TransactionalJdbc jdbc;

	private final String select;

	private final String insert;

	private final String update;

	/**
	 * Create a store.
	 * @param dataSource the business database, the claims' own
	 * @param table the offset table
	 * @param dialect the database's dialect
	 * @param clock the clock of the {@code updated_at} column
	 */
	public JdbcOffsetStore(DataSource dataSource, TableName table, SqlDialect dialect, Clock clock) {
		this.dataSource = dataSource;
		this.jdbc = new TransactionalJdbc(dataSource, dialect, clock);
		String where = " WHERE consumer_group = ? AND topic = ? AND partition_id = ?";
		this.select = "SELECT next_offset FROM " + table + where;
		String columns = " (consumer_group, topic, partition_id, next_offset, updated_at) VALUES (?, ?, ?, ?, ?)";
		this.insert = switch (dialect) {
			case MYSQL, MARIADB -> "INSERT IGNORE INTO " + table + columns;
			case POSTGRESQL -> "INSERT INTO " + table + columns + " ON CONFLICT (consumer_group, topic, partition_id) DO NOTHING";
			case H2 -> "INSERT INTO " + table + columns;
		};
		this.update = "UPDATE " + table + " SET next_offset = ?, updated_at = ?" + where + " AND next_offset = ?";
	}

	/**
	 * Read the stored offset of a group's partition.
	 * @param group the consumer group
	 * @param topic the topic
	 * @param partition the partition
	 * @return the offset of the next record to consume, empty when none is stored
	 * @throws org.springframework.dao.DataAccessException if the database cannot be read
	 */
	public OptionalLong find(String group, String topic, int partition) {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (PreparedStatement ps = connection.prepareStatement(this.select)) {
			ps.setString(1, group);
			ps.setString(2, topic);
			ps.setInt(3, partition);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
			}
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("reading the stored offset of " + group + " " + topic + "-" + partition, ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	/**
	 * Move a group's stored offset of a partition, in the current transaction, from the value the caller last saw.
	 * @param group the consumer group
	 * @param topic the topic
	 * @param partition the partition
	 * @param expected the offset the caller expects the row to hold, {@code null} if it expects no row
	 * @param next the offset of the next record to consume
	 * @return whether the row held {@code expected} (or did not exist, when {@code null}) and now holds {@code next};
	 * {@code false} leaves the row as it was
	 * @throws IllegalStateException if no transaction is active on the data source
	 * @throws org.springframework.dao.DataAccessException if the database cannot be written; a
	 * {@link dev.idempotent.claim.TransientClaimException} for a deadlock or lock-wait timeout
	 */
	public boolean advance(String group, String topic, int partition, @Nullable Long expected, long next) {
		if (expected != null && expected == next) {
			return true;
		}
		Connection connection = this.jdbc.connection();
		try {
			if (expected == null) {
				return insert(connection, group, topic, partition, next);
			}
			try (PreparedStatement ps = connection.prepareStatement(this.update)) {
				ps.setLong(1, next);
				this.jdbc.dialect().bindTime(ps, 2, this.jdbc.now());
				ps.setString(3, group);
				ps.setString(4, topic);
				ps.setInt(5, partition);
				ps.setLong(6, expected);
				return ps.executeUpdate() == 1;
			}
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("storing the offset of " + group + " " + topic + "-" + partition, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	private boolean insert(Connection connection, String group, String topic, int partition, long next)
			throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.insert)) {
			ps.setString(1, group);
			ps.setString(2, topic);
			ps.setInt(3, partition);
			ps.setLong(4, next);
			this.jdbc.dialect().bindTime(ps, 5, this.jdbc.now());
			return ps.executeUpdate() == 1;
		}
		catch (SQLException ex) {
			if (this.jdbc.dialect().isDuplicateKey(ex)) {
				return false; // H2: another consumer stored the partition's first offset
			}
			throw ex;
		}
	}

}
