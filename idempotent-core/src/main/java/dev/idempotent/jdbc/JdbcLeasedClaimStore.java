package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.LeaseResult;
import dev.idempotent.claim.LeasedClaimStore;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LeasedClaimStore} on the same idempotency table as {@link JdbcClaimStore}, for
 * {@link dev.idempotent.claim.ClaimMode#LEASED} claims. The lease claim is an INSERT with {@code lease_until}, whose
 * own result decides as for {@link JdbcClaimStore} (see {@link ClaimInsert}; on MySQL and MariaDB a hit raises no
 * server error); when the key is taken, its row is read with a locking (current) read where the dialect needs one:
 * no row is an error (another unique constraint was violated, see {@link ClaimInsert#rowNotFound}), never "held
 * elsewhere"; a row that is FAILED or whose lease expired is taken over by an UPDATE fenced by the
 * {@code attempts} value read, so that of several consumers exactly one wins. Completion and release are fenced
 * the same way: a consumer whose lease was taken over cannot complete or release the new holder's attempt.
 * Lease expiry compares with this store's clock (UTC). Thread-safe.
 *
 * @since 0.1.0
 */
public class JdbcLeasedClaimStore implements LeasedClaimStore {

	private final TransactionalJdbc jdbc;

	private final SqlDialect dialect;

	private final LeaseStatements leaseSql;

	private final ClaimInsert claimInsert;

	/**
	 * Create a store.
	 * @param dataSource the business database, never {@code null}
	 * @param table the idempotency table, never {@code null}
	 * @param dialect the database's dialect, see {@link SqlDialect#detect}
	 * @param clock the clock for lease times; its zone is ignored (times are UTC)
	 */
	public JdbcLeasedClaimStore(DataSource dataSource, TableName table, SqlDialect dialect, Clock clock) {
		this.jdbc = new TransactionalJdbc(dataSource, dialect, clock);
		this.dialect = dialect;
		this.leaseSql = LeaseStatements.forTable(table, dialect);
		this.claimInsert = new ClaimInsert(dataSource, table, dialect);
	}

	@Override
	public LeaseResult claimLease(ClaimRequest request, Duration lease) {
		Connection connection = this.jdbc.connection();
		try {
			LocalDateTime now = this.jdbc.now();
			LocalDateTime until = now.plus(lease);
			if (insertLeased(connection, request, now, until)) {
				return new LeaseResult.Acquired(false, 1, TransactionalJdbc.utc(until));
			}
			LeaseRow row = readLease(connection, request);
			if (row == null && this.claimInsert.rowMayVanish()) {
				// the row may have been deleted (by retention) since the INSERT found it: a second INSERT decides
				if (insertLeased(connection, request, now, until)) {
					return new LeaseResult.Acquired(false, 1, TransactionalJdbc.utc(until));
				}
				row = readLease(connection, request);
			}
			if (row == null) {
				throw this.claimInsert.rowNotFound(request);
			}
			if (row.status() == ClaimStatus.SUCCEEDED) {
				return new LeaseResult.Done(
						new ClaimResult.Hit(row.status(), TransactionalJdbc.utc(row.created()), null, row.source()));
			}
			boolean free = row.status() == ClaimStatus.FAILED || row.leaseUntil() == null || row.leaseUntil().isBefore(now);
			if (free && takeOver(connection, request, row.attempts(), now, until)) {
				return new LeaseResult.Acquired(true, row.attempts() + 1, TransactionalJdbc.utc(until));
			}
			return new LeaseResult.Held(TransactionalJdbc.utc(row.leaseUntil()));
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("lease claim", request, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	@Override
	public boolean completeLease(ClaimRequest request, int attempt) {
		return updateLease(this.leaseSql.complete(), "complete lease", request, attempt, null) == 1;
	}

	@Override
	public void releaseLease(ClaimRequest request, int attempt, String lastError) {
		updateLease(this.leaseSql.release(), "release lease", request, attempt, lastError);
	}

	private int updateLease(String statement, String operation, ClaimRequest request, int attempt,
			@Nullable String lastError) {
		Connection connection = this.jdbc.connection();
		try (PreparedStatement ps = connection.prepareStatement(statement)) {
			int index = 1;
			if (lastError != null) {
				ps.setString(index++, lastError);
			}
			this.dialect.bindTime(ps, index++, this.jdbc.now());
			ps.setString(index++, request.scope());
			ps.setString(index++, request.key());
			ps.setInt(index, attempt);
			return ps.executeUpdate();
		}
		catch (SQLException ex) {
			throw this.jdbc.translate(operation, request, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	private boolean insertLeased(Connection connection, ClaimRequest request, LocalDateTime now, LocalDateTime until)
			throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.leaseSql.insert())) {
			ps.setString(1, request.scope());
			ps.setString(2, request.key());
			TransactionalJdbc.bindSource(ps, 3, request.source());
			this.dialect.bindTime(ps, 6, now);
			this.dialect.bindTime(ps, 7, now);
			this.dialect.bindTime(ps, 8, until);
			return this.claimInsert.run(ps, request);
		}
	}

	/** Read the row of a key the lease INSERT found taken, with a locking read where the dialect needs one. */
	private @Nullable LeaseRow readLease(Connection connection, ClaimRequest request) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.leaseSql.read())) {
			ps.setString(1, request.scope());
			ps.setString(2, request.key());
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					return null;
				}
				return new LeaseRow(ClaimStatus.fromCode(rs.getInt(1)), rs.getInt(2),
						rs.getObject(3, LocalDateTime.class), rs.getObject(4, LocalDateTime.class),
						TransactionalJdbc.readSource(rs, 5));
			}
		}
	}

	/** Take a FAILED row or an expired lease; the attempts read fence it, so one of several consumers wins. */
	private boolean takeOver(Connection connection, ClaimRequest request, int attempts, LocalDateTime now,
			LocalDateTime until) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.leaseSql.takeOver())) {
			this.dialect.bindTime(ps, 1, until);
			TransactionalJdbc.bindSource(ps, 2, request.source());
			this.dialect.bindTime(ps, 5, now);
			ps.setString(6, request.scope());
			ps.setString(7, request.key());
			ps.setInt(8, attempts);
			this.dialect.bindTime(ps, 9, now);
			return ps.executeUpdate() == 1;
		}
	}

	/** The row of a taken key, as the lease claim reads it (UTC times). */
	private record LeaseRow(ClaimStatus status, int attempts, @Nullable LocalDateTime leaseUntil,
			LocalDateTime created, @Nullable DeliverySource source) {
	}

}
