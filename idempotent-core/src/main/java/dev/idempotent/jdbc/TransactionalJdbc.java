package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;

import javax.sql.DataSource;

import dev.idempotent.key.KeyMasker;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.TransientClaimException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * What the JDBC stores share: the connection of the current transaction (refusing to work without one), UTC
 * times from one clock, the binding of a delivery source, and the translation of errors (transient ones into
 * {@link TransientClaimException}). Thread-safe.
 */
final class TransactionalJdbc {

	private final DataSource dataSource;

	private final SqlDialect dialect;

	private final Clock clock;

	private final SQLExceptionTranslator translator;

	TransactionalJdbc(DataSource dataSource, SqlDialect dialect, Clock clock) {
		this.dataSource = dataSource;
		this.dialect = dialect;
		this.clock = clock;
		this.translator = new SQLErrorCodeSQLExceptionTranslator(dataSource);
	}

	SqlDialect dialect() {
		return this.dialect;
	}

	/** The connection bound to the current transaction on the data source. */
	Connection connection() {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		if (!DataSourceUtils.isConnectionTransactional(connection, this.dataSource)) {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
			throw new IllegalStateException("The claim store must run inside a transaction on its DataSource, "
					+ "so that the claim commits together with the business write; none is active");
		}
		return connection;
	}

	void release(Connection connection) {
		DataSourceUtils.releaseConnection(connection, this.dataSource);
	}

	/** Now, in UTC, to the microsecond (the columns' precision). */
	LocalDateTime now() {
		return ColumnTime.of(this.clock.instant());
	}

	static @Nullable Instant utc(@Nullable LocalDateTime time) {
		return ColumnTime.toInstant(time);
	}

	/** Read topic, partition and offset from three columns from {@code index}: {@code null} if the topic is. */
	static @Nullable DeliverySource readSource(ResultSet rs, int index) throws SQLException {
		String topic = rs.getString(index);
		int partition = rs.getInt(index + 1);
		boolean noPartition = rs.wasNull();
		long offset = rs.getLong(index + 2);
		if (topic == null || noPartition || rs.wasNull()) {
			return null;
		}
		return new DeliverySource(topic, partition, offset);
	}

	/** Bind topic, partition and offset to three parameters from {@code index}. */
	static void bindSource(PreparedStatement ps, int index, @Nullable DeliverySource source) throws SQLException {
		if (source == null) {
			ps.setNull(index, Types.VARCHAR);
			ps.setNull(index + 1, Types.INTEGER);
			ps.setNull(index + 2, Types.BIGINT);
		}
		else {
			ps.setString(index, source.topic());
			ps.setInt(index + 1, source.partition());
			ps.setLong(index + 2, source.offset());
		}
	}

	RuntimeException translate(String operation, ClaimRequest request, SQLException ex) {
		return translate(operation + " of scope=" + request.scope() + " key=" + KeyMasker.MASKED.mask(request.key()), ex);
	}

	/** Translate the failure of a task: transient ones into {@link TransientClaimException}. */
	RuntimeException translate(String task, SQLException ex) {
		if (this.dialect.isTransient(ex)) {
			return new TransientClaimException("Transient failure during " + task, ex);
		}
		DataAccessException translated = this.translator.translate(task, null, ex);
		return (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
	}

}
