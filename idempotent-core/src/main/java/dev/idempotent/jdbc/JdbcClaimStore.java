package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.sql.DataSource;

import dev.idempotent.key.KeyMasker;
import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;

import org.springframework.jdbc.datasource.DataSourceUtils;

/**
 * A {@link ClaimStore} on an idempotency table in the business database ({@link JdbcLeasedClaimStore} holds the
 * leases of LEASED claims on the same table).
 * <p>The claim is one INSERT guarded by the unique index on (scope, idempotency_key). Its own result decides
 * between "claimed" and "exists" (see {@link ClaimInsert}): a duplicate (no row from MariaDB's
 * {@code INSERT IGNORE ... RETURNING}, 0 rows from MySQL's {@code INSERT IGNORE} or PostgreSQL's
 * {@code ON CONFLICT DO NOTHING}, an error recognised by vendor code on H2, see {@link SqlDialect#claimInsert}) means the
 * key was claimed before; on MySQL and MariaDB a hit thus raises no server error. The existing row is
 * then read with a shared locking (current) read, which confirms that the idempotency index was the violated
 * constraint and reports its status and first-processing time whatever the isolation level; only a FAILED row
 * is taken over, by an UPDATE conditional on {@code status = 2}, which is atomic on its own. No SELECT ever
 * decides that a key is new.
 * <p>Concurrent claims of one key serialise on the unique index: the second INSERT waits until the first
 * transaction ends, then fails as a duplicate (the first committed) or succeeds (the first rolled back).
 * <p>All statements run on the connection bound to the current transaction (Spring's
 * {@link DataSourceUtils}), so they commit or roll back with the business write. Calling the store outside a
 * transaction is refused, since the claim would then commit on its own.
 * <p>Times are written and read as UTC on the JVM's {@link Clock}, whatever the JVM's and the server's time
 * zones are. Thread-safe.
 *
 * @since 0.1.0
 */
public class JdbcClaimStore implements ClaimStore {

	/** The most keys one multi-row statement carries. */
	static final int CHUNK = 500;

	private final TransactionalJdbc jdbc;

	private final TableName table;

	private final SqlDialect dialect;

	private final ClaimStatements sql;

	private final ClaimInsert claimInsert;

	private final ClaimOperations operations;

	private final BatchClaim batchClaim;

	private final TransactionCheckpoints checkpoints;

	/**
	 * Create a store.
	 * @param dataSource the business database, never {@code null}
	 * @param table the idempotency table, never {@code null}
	 * @param dialect the database's dialect, see {@link SqlDialect#detect}
	 * @param clock the clock for created/updated times; its zone is ignored (times are UTC)
	 */
	public JdbcClaimStore(DataSource dataSource, TableName table, SqlDialect dialect, Clock clock) {
		this(dataSource, table, dialect, clock, false);
	}

	/**
	 * Create a store that may store payload fingerprints.
	 * @param dataSource the business database, never {@code null}
	 * @param table the idempotency table, never {@code null}
	 * @param dialect the database's dialect, see {@link SqlDialect#detect}
	 * @param clock the clock for created/updated times; its zone is ignored (times are UTC)
	 * @param fingerprints whether claims write {@link ClaimRequest#fingerprint()} to the {@code payload_fingerprint}
	 * column and hits read it back ({@link ClaimResult.Hit#fingerprint()}); the table must then have that column
	 * (see {@link SchemaValidator}). Without, the column is neither written nor read and may be absent
	 */
	public JdbcClaimStore(DataSource dataSource, TableName table, SqlDialect dialect, Clock clock,
			boolean fingerprints) {
		this.jdbc = new TransactionalJdbc(dataSource, dialect, clock);
		this.table = table;
		this.dialect = dialect;
		this.operations = new ClaimOperations(dataSource, table, dialect, fingerprints);
		this.sql = this.operations.statements();
		this.claimInsert = this.operations.claimInsert();
		this.batchClaim = BatchClaim.of(this.operations);
		this.checkpoints = new TransactionCheckpoints(this.jdbc);
	}

	/**
	 * Return the dialect this store uses.
	 * @return the dialect, never {@code null}
	 */
	public SqlDialect getDialect() {
		return this.dialect;
	}

	@Override
	public ClaimResult claim(ClaimRequest request) {
		Connection connection = this.jdbc.connection();
		try {
			LocalDateTime now = this.jdbc.now();
			return this.operations.claimOne(connection, request, now);
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("claim", request, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	/**
	 * Claim several keys in as few round trips as the database allows, {@value #CHUNK} keys per statement, grouped by
	 * scope and in key order (so that concurrent batches lock their common keys in the same order). Each chunk is
	 * claimed by the dialect's {@link BatchClaim}: {@link PostgreSqlBatchClaim}, {@link MariaDbBatchClaim} or
	 * {@link BisectingBatchClaim} (MySQL, H2). Keys whose rows exist but did not succeed (FAILED rows to take over,
	 * leases) are claimed one by one, as {@link #claim} does.
	 * @throws IllegalArgumentException if two requests have the same scope and key
	 */
	@Override
	public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
		if (requests.size() < 2) {
			return ClaimStore.super.claimAll(requests);
		}
		Connection connection = this.jdbc.connection();
		try {
			LocalDateTime now = this.jdbc.now();
			Map<ClaimRequest, ClaimResult> results = new HashMap<>();
			for (List<ClaimRequest> chunk : chunksByScope(requests)) {
				results.putAll(this.batchClaim.claimChunk(connection, chunk, now));
			}
			return requests.stream().map((request) -> results.get(ClaimOperations.withoutSource(request))).toList();
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("claim of " + requests.size() + " keys", requests.get(0), ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	/**
	 * The requests grouped by scope, in scope and then key order, each group cut into chunks of {@value #CHUNK}: so
	 * that the claim INSERTs of concurrent batches lock the keys they have in common in the same order, whatever their
	 * chunks.
	 * @throws IllegalArgumentException if two requests have the same scope and key
	 */
	private static List<List<ClaimRequest>> chunksByScope(List<ClaimRequest> requests) {
		Map<String, List<ClaimRequest>> byScope = new TreeMap<>();
		requests.forEach((request) -> byScope.computeIfAbsent(request.scope(), (scope) -> new ArrayList<>()).add(request));
		List<List<ClaimRequest>> chunks = new ArrayList<>();
		for (List<ClaimRequest> scoped : byScope.values()) {
			scoped.sort(Comparator.comparing(ClaimRequest::key));
			for (int i = 1; i < scoped.size(); i++) {
				if (scoped.get(i).key().equals(scoped.get(i - 1).key())) {
					throw new IllegalArgumentException("The claims of a batch must have distinct keys; scope="
							+ scoped.get(i).scope() + " has key " + KeyMasker.MASKED.mask(scoped.get(i).key()) + " twice");
				}
			}
			for (int from = 0; from < scoped.size(); from += CHUNK) {
				chunks.add(scoped.subList(from, Math.min(scoped.size(), from + CHUNK)));
			}
		}
		return chunks;
	}

	/**
	 * Set the checkpoint of the claims just made (see {@link ClaimCheckpoint} and {@link TransactionCheckpoints}): a
	 * savepoint on MySQL and MariaDB, the transaction's id on H2, nothing before the check on PostgreSQL.
	 */
	@Override
	public ClaimCheckpoint checkpoint() {
		return this.checkpoints.set();
	}

	/** A failure with a SQL error of the dialect's conflicts (see {@link SqlDialect#isConflict}) among its causes. */
	@Override
	public boolean isConflict(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SQLException sql && this.dialect.isConflict(sql)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void markFailed(ClaimRequest request, int attempts, String lastError) {
		Connection connection = this.jdbc.connection();
		try {
			LocalDateTime now = this.jdbc.now();
			if (updateFailed(connection, request, attempts, lastError, now) == 0) {
				insertFailed(connection, request, attempts, lastError, now);
			}
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("mark FAILED", request, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	private int updateFailed(Connection connection, ClaimRequest request, int attempts, String lastError,
			LocalDateTime now) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.markFailed())) {
			ps.setInt(1, attempts);
			ps.setString(2, lastError);
			this.dialect.bindTime(ps, 3, now);
			ps.setString(4, request.scope());
			ps.setString(5, request.key());
			this.dialect.bindTime(ps, 6, now);
			return ps.executeUpdate();
		}
	}

	/**
	 * No row yet (the claim rolled back with the failed work): insert a FAILED one. A key found taken means its row
	 * exists and may not be downgraded (it SUCCEEDED, or holds a live lease); like a claim, that INSERT raises no
	 * server error on MySQL and MariaDB (see {@link ClaimInsert}).
	 */
	private void insertFailed(Connection connection, ClaimRequest request, int attempts, String lastError,
			LocalDateTime now) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.insertFailed())) {
			ps.setString(1, request.scope());
			ps.setString(2, request.key());
			ps.setInt(3, attempts);
			ps.setString(4, lastError);
			this.dialect.bindTime(ps, 5, now);
			this.dialect.bindTime(ps, 6, now);
			this.claimInsert.run(ps, request);
		}
	}

}
