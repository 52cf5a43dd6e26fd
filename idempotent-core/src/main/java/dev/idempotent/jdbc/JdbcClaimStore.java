package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import javax.sql.DataSource;

import dev.idempotent.key.KeyMasker;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.TransientClaimException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataIntegrityViolationException;
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
		this.sql = ClaimStatements.forTable(table, dialect, fingerprints);
		this.claimInsert = new ClaimInsert(dataSource, table, dialect);
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
			if (insert(connection, request, now)) {
				return new ClaimResult.Claimed(false);
			}
			return existing(connection, request, now);
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("claim", request, ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	/**
	 * Claim several keys in as few round trips as the database allows, {@value #CHUNK} keys per statement.
	 * <ul>
	 * <li>PostgreSQL: one multi-row {@code INSERT ... ON CONFLICT (scope, idempotency_key) DO NOTHING RETURNING}
	 * reports the new keys (it takes no lock on the rows of keys that exist); the keys it skipped are read back with
	 * one plain read, which sees the latest committed rows.</li>
	 * <li>MySQL, MariaDB, H2: a plain read first finds the keys this transaction can already see (skipped under READ
	 * UNCOMMITTED, where it could see uncommitted claims); those that SUCCEEDED are hits (a committed SUCCEEDED row
	 * is final), and they take no lock. The others are inserted in key order by one multi-row INSERT, whose own
	 * result decides. On MariaDB (10.5+) it is an {@code INSERT IGNORE ... RETURNING}, which skips the keys committed
	 * since the read, or held by a concurrent claim that then committed; each skipped key is then claimed as
	 * {@link #claim} does, with a locking read of its own row (a locking read of many keys at once can scan and lock
	 * the whole scope, depending on the plan). As {@code IGNORE} also skips rows that violate another constraint and
	 * stores values the column cannot hold altered, a returned key that is not one of the requested ones, or a
	 * skipped key without a row, fails the claim (the transaction rolls back). On MySQL (no {@code RETURNING}) and H2
	 * a duplicate fails the whole statement, which then has inserted nothing, and each half of its keys is claimed
	 * the same way, down to single keys.</li>
	 * </ul>
	 * Keys whose rows exist but did not succeed (FAILED rows to take over, leases) are claimed one by one, as
	 * {@link #claim} does.
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
				// ON CONFLICT absorbs duplicates without an error and without locking the existing rows
				results.putAll(this.dialect.insertSuffix().isEmpty() ? claimChunk(connection, chunk, now)
						: claimChunkInsertingFirst(connection, chunk, now));
			}
			return requests.stream().map((request) -> results.get(withoutSource(request))).toList();
		}
		catch (SQLException ex) {
			throw this.jdbc.translate("claim of " + requests.size() + " keys", requests.get(0), ex);
		}
		finally {
			this.jdbc.release(connection);
		}
	}

	/**
	 * Claim a chunk (one scope) with the dialect's skipping INSERT first, then decide the skipped keys from their rows,
	 * read with one plain read: for PostgreSQL, whose reads see the latest committed rows and take no locks.
	 */
	private Map<ClaimRequest, ClaimResult> claimChunkInsertingFirst(Connection connection, List<ClaimRequest> chunk,
			LocalDateTime now) throws SQLException {
		Map<ClaimRequest, ClaimResult> results = new HashMap<>();
		List<ClaimRequest> skipped = insertSkipping(connection, chunk, now, results);
		if (!skipped.isEmpty()) {
			Map<String, ClaimResult.Hit> rows = readVisible(connection, skipped);
			for (ClaimRequest request : skipped) {
				results.put(withoutSource(request), decide(connection, request, rows.get(request.key()), now));
			}
		}
		return results;
	}

	/**
	 * Insert keys (one scope, in key order) with the dialect's skipping INSERT: puts a claim for each key it inserted
	 * into {@code results} and returns the keys it skipped.
	 * @throws DataIntegrityViolationException if a returned key is none of the requested ones
	 */
	private List<ClaimRequest> insertSkipping(Connection connection, List<ClaimRequest> keys, LocalDateTime now,
			Map<ClaimRequest, ClaimResult> results) throws SQLException {
		Set<ClaimRequest> inserted = insertReturning(connection, keys, now);
		List<ClaimRequest> skipped = new ArrayList<>();
		for (ClaimRequest request : keys) {
			if (inserted.remove(withoutSource(request))) {
				results.put(withoutSource(request), new ClaimResult.Claimed(false));
			}
			else {
				skipped.add(request);
			}
		}
		if (!inserted.isEmpty()) {
			throw this.claimInsert.alteredKey(keys.get(0));
		}
		return skipped;
	}

	private Map<ClaimRequest, ClaimResult> claimChunk(Connection connection, List<ClaimRequest> chunk,
			LocalDateTime now) throws SQLException {
		// under READ UNCOMMITTED the read could see another transaction's claim that will still roll back
		Map<String, ClaimResult.Hit> visible = (connection.getTransactionIsolation() == Connection.TRANSACTION_READ_UNCOMMITTED)
				? Map.of() : readVisible(connection, chunk);
		Map<ClaimRequest, ClaimResult> results = new HashMap<>();
		List<ClaimRequest> absent = new ArrayList<>();
		for (ClaimRequest request : chunk) {
			ClaimResult.Hit seen = visible.get(request.key());
			if (seen == null) {
				absent.add(request);
			}
			else if (seen.status() == ClaimStatus.SUCCEEDED) {
				results.put(withoutSource(request), seen);
			}
			else {
				results.put(withoutSource(request), claimOne(connection, request, now));
			}
		}
		claimAbsent(connection, absent, now, results);
		return results;
	}

	/**
	 * Claim keys the transaction did not see, in key order (so that concurrent batches lock their common keys in
	 * the same order), all in one INSERT. With the dialect's skipping INSERT (MariaDB) the keys it skipped are claimed
	 * one by one, as {@link #claim} does. Otherwise, if the INSERT fails as a duplicate, it inserted nothing, and each
	 * half is claimed the same way, down to single keys, which are claimed as {@link #claim} does: one key committed
	 * by another transaction costs about log2(keys) extra statements instead of one per key.
	 */
	private void claimAbsent(Connection connection, List<ClaimRequest> keys, LocalDateTime now,
			Map<ClaimRequest, ClaimResult> results) throws SQLException {
		if (keys.isEmpty()) {
			return;
		}
		if (this.dialect.skippingInsertVerb() != null && keys.size() > 1) {
			for (ClaimRequest request : insertSkipping(connection, keys, now, results)) {
				results.put(withoutSource(request), existing(connection, request, now));
			}
			return;
		}
		if (keys.size() == 1) {
			results.put(withoutSource(keys.get(0)), claimOne(connection, keys.get(0), now));
			return;
		}
		if (insertAll(connection, keys, now)) {
			keys.forEach((request) -> results.put(withoutSource(request), new ClaimResult.Claimed(false)));
			return;
		}
		int half = keys.size() / 2;
		claimAbsent(connection, keys.subList(0, half), now, results);
		claimAbsent(connection, keys.subList(half, keys.size()), now, results);
	}

	private ClaimResult claimOne(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
		return insert(connection, request, now) ? new ClaimResult.Claimed(false) : existing(connection, request, now);
	}

	/**
	 * The rows of some keys of one scope that the transaction sees, by key: a plain read that takes no locks (a
	 * locking read of many keys can scan, and lock, the whole scope, depending on the plan).
	 */
	private Map<String, ClaimResult.Hit> readVisible(Connection connection, List<ClaimRequest> requests)
			throws SQLException {
		Map<String, ClaimResult.Hit> rows = new HashMap<>();
		try (PreparedStatement ps = connection.prepareStatement(this.sql.readVisible(requests.size()))) {
			ps.setString(1, requests.get(0).scope());
			for (int i = 0; i < requests.size(); i++) {
				ps.setString(2 + i, requests.get(i).key());
			}
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					rows.put(rs.getString(1), new ClaimResult.Hit(ClaimStatus.fromCode(rs.getInt(2)),
							TransactionalJdbc.utc(rs.getObject(3, LocalDateTime.class)), fingerprint(rs, 7),
							TransactionalJdbc.readSource(rs, 4)));
				}
			}
		}
		return rows;
	}

	/** Insert every row of a chunk, or none: {@code false} if one of them was a duplicate. */
	private boolean insertAll(Connection connection, List<ClaimRequest> chunk, LocalDateTime now) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.insertAll(chunk.size()))) {
			bindRows(ps, chunk, now);
			return ps.executeUpdate() == chunk.size();
		}
		catch (SQLException ex) {
			if (!this.dialect.isDuplicateKey(ex)) {
				throw ex;
			}
			return false;
		}
	}

	private void bindRows(PreparedStatement ps, List<ClaimRequest> chunk, LocalDateTime now) throws SQLException {
		int index = 1;
		for (ClaimRequest request : chunk) {
			bindRow(ps, index, request, now);
			index += this.sql.insertParameters();
		}
	}

	/** Bind one row of a claim INSERT from parameter {@code index}: see {@link ClaimStatements#insert()}. */
	private void bindRow(PreparedStatement ps, int index, ClaimRequest request, LocalDateTime now) throws SQLException {
		ps.setString(index, request.scope());
		ps.setString(index + 1, request.key());
		TransactionalJdbc.bindSource(ps, index + 2, request.source());
		this.dialect.bindTime(ps, index + 5, now);
		this.dialect.bindTime(ps, index + 6, now);
		if (this.sql.fingerprints()) {
			ps.setString(index + 7, request.fingerprint());
		}
	}

	private @Nullable String fingerprint(ResultSet rs, int column) throws SQLException {
		return this.sql.fingerprints() ? rs.getString(column) : null;
	}

	/** Run the skipping INSERT: the (scope, key) of each row it inserted, as requests without source. */
	private Set<ClaimRequest> insertReturning(Connection connection, List<ClaimRequest> chunk, LocalDateTime now)
			throws SQLException {
		Set<ClaimRequest> inserted = new HashSet<>();
		String verb = Objects.requireNonNull(this.dialect.skippingInsertVerb(), "a dialect with a skipping INSERT");
		try (PreparedStatement ps = connection.prepareStatement(this.sql.insertSkipping(verb, chunk.size()))) {
			bindRows(ps, chunk, now);
			// execute, not executeQuery: mysql-connector-j refuses executeQuery for an INSERT, even with RETURNING
			if (!ps.execute()) {
				throw new IllegalStateException("The batch claim INSERT ... RETURNING returned no result set");
			}
			try (ResultSet rs = ps.getResultSet()) {
				while (rs.next()) {
					inserted.add(new ClaimRequest(rs.getString(1), rs.getString(2), null));
				}
			}
			if (this.dialect == SqlDialect.MARIADB) {
				if (!chunk.stream().map(JdbcClaimStore::withoutSource).toList().containsAll(inserted)) {
					throw this.claimInsert.alteredKey(chunk.get(0));
				}
				// IGNORE skips duplicates with a warning each, and stores a value a column cannot hold altered with one
				this.claimInsert.requireOnlyDuplicateWarnings(ps, chunk.get(0));
			}
		}
		return inserted;
	}

	private ClaimResult existing(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
		ClaimResult.Hit row = readExisting(connection, request);
		if (row == null && this.claimInsert.rowMayVanish()) {
			// the row may have been deleted (by retention) since the INSERT found it: a second INSERT decides
			if (insert(connection, request, now)) {
				return new ClaimResult.Claimed(false);
			}
			row = readExisting(connection, request);
		}
		return decide(connection, request, row, now);
	}

	/**
	 * Decide a claim whose INSERT found its key taken, from the key's row read with a locking (current) read: a
	 * FAILED row is taken over, any other row is a hit, no row an error (see {@link ClaimInsert#rowNotFound}).
	 */
	private ClaimResult decide(Connection connection, ClaimRequest request, ClaimResult.@Nullable Hit existing,
			LocalDateTime now) throws SQLException {
		if (existing == null) {
			throw this.claimInsert.rowNotFound(request);
		}
		if (existing.status() == ClaimStatus.FAILED) {
			if (reclaim(connection, request, now)) {
				return new ClaimResult.Claimed(true);
			}
			// PostgreSQL reads without a lock: the row changed since the read (taken over by a claim that committed,
			// or removed by retention); a FAILED row is no hit, so try the whole claim again
			throw new TransientClaimException("The FAILED row of scope=" + request.scope() + " changed while it was"
					+ " being claimed again; retry the transaction", new SQLException("row changed", "40001"));
		}
		return existing;
	}

	private static ClaimRequest withoutSource(ClaimRequest request) {
		return new ClaimRequest(request.scope(), request.key(), null);
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
	 * On PostgreSQL, fail if a statement of the transaction failed (see {@link ClaimStore#requireCommittable()}),
	 * read from the driver's transaction state without a round trip where the driver is PgJDBC.
	 */
	@Override
	public void requireCommittable() {
		if (this.dialect != SqlDialect.POSTGRESQL) {
			return;
		}
		Connection connection = this.jdbc.connection();
		try {
			AbortedTransactions.requireUsable(connection);
		}
		finally {
			this.jdbc.release(connection);
		}
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

	/**
	 * The claim INSERT of one key, whose own result decides (see {@link ClaimInsert}): {@code true} if it inserted the
	 * row, {@code false} if the key is taken. On MySQL and MariaDB it is an {@code INSERT IGNORE}, so a hit raises no
	 * server error (and no driver logs one with the key in it).
	 */
	private boolean insert(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.insert())) {
			bindRow(ps, 1, request, now);
			return this.claimInsert.run(ps, request);
		}
	}

	private boolean reclaim(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.reclaim())) {
			TransactionalJdbc.bindSource(ps, 1, request.source());
			this.dialect.bindTime(ps, 4, now);
			int index = 5;
			if (this.sql.fingerprints()) {
				ps.setString(index++, request.fingerprint());
			}
			ps.setString(index, request.scope());
			ps.setString(index + 1, request.key());
			return ps.executeUpdate() == 1;
		}
	}

	/**
	 * Read the existing row after a duplicate: a shared locking read where the dialect needs one (see
	 * {@link SqlDialect#lockingReadSuffix()}), so that it sees the latest committed row whatever the isolation
	 * level; never an exclusive lock or an unconditional update, which made concurrent hits on one key deadlock on
	 * InnoDB. No row means the duplicate came from another unique constraint.
	 */
	private ClaimResult.@Nullable Hit readExisting(Connection connection, ClaimRequest request) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.read())) {
			ps.setString(1, request.scope());
			ps.setString(2, request.key());
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					return null;
				}
				LocalDateTime created = rs.getObject(2, LocalDateTime.class);
				return new ClaimResult.Hit(ClaimStatus.fromCode(rs.getInt(1)), TransactionalJdbc.utc(created),
						fingerprint(rs, 6), TransactionalJdbc.readSource(rs, 3));
			}
		}
	}

}
