package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.TransientClaimException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataIntegrityViolationException;

/**
 * The claim statements of one idempotency table, run on a connection of the caller's transaction: the claim of one
 * key (an INSERT whose own result decides, then a locking read of an existing row and the take-over of a FAILED
 * one), and the multi-row statements the batch strategies ({@link BatchClaim}) build on (a plain read of many keys,
 * a multi-row INSERT that inserts all rows or none, a skipping multi-row INSERT that returns the rows it inserted).
 * <p>Thread-safe: it holds no connection.
 */
final class ClaimOperations {

	private final SqlDialect dialect;

	private final ClaimStatements sql;

	private final ClaimInsert claimInsert;

	ClaimOperations(DataSource dataSource, TableName table, SqlDialect dialect, boolean fingerprints) {
		this.dialect = dialect;
		this.sql = ClaimStatements.forTable(table, dialect, fingerprints);
		this.claimInsert = new ClaimInsert(dataSource, table, dialect);
	}

	SqlDialect dialect() {
		return this.dialect;
	}

	ClaimStatements statements() {
		return this.sql;
	}

	ClaimInsert claimInsert() {
		return this.claimInsert;
	}

	/** Claim one key: its INSERT decides; a key found taken is decided from its row (see {@link #existing}). */
	ClaimResult claimOne(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
		return insert(connection, request, now) ? new ClaimResult.Claimed(false) : existing(connection, request, now);
	}

	/**
	 * The claim INSERT of one key, whose own result decides (see {@link ClaimInsert}): {@code true} if it inserted the
	 * row, {@code false} if the key is taken. On MySQL and MariaDB it is an {@code INSERT IGNORE}, so a hit raises no
	 * server error (and no driver logs one with the key in it).
	 */
	boolean insert(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement(this.sql.insert())) {
			bindRow(ps, 1, request, now);
			return this.claimInsert.run(ps, request);
		}
	}

	/** Decide a key its INSERT found taken, from its row read with a locking read. */
	ClaimResult existing(Connection connection, ClaimRequest request, LocalDateTime now) throws SQLException {
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
	 * Decide a claim whose INSERT found its key taken, from the key's row: a FAILED row is taken over, any other row
	 * is a hit, no row an error (see {@link ClaimInsert#rowNotFound}).
	 */
	ClaimResult decide(Connection connection, ClaimRequest request, ClaimResult.@Nullable Hit existing,
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

	/**
	 * The rows of some keys of one scope that the transaction sees, by key: a plain read that takes no locks (a
	 * locking read of many keys can scan, and lock, the whole scope, depending on the plan).
	 */
	Map<String, ClaimResult.Hit> readVisible(Connection connection, List<ClaimRequest> requests) throws SQLException {
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
	boolean insertAll(Connection connection, List<ClaimRequest> chunk, LocalDateTime now) throws SQLException {
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

	/**
	 * Insert keys (one scope, in key order) with the dialect's skipping INSERT: puts a claim for each key it inserted
	 * into {@code results} and returns the keys it skipped.
	 * @throws DataIntegrityViolationException if a returned key is none of the requested ones
	 */
	List<ClaimRequest> insertSkipping(Connection connection, List<ClaimRequest> keys, LocalDateTime now,
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

	/** Run the skipping INSERT: the (scope, key) of each row it inserted, as requests without source. */
	private Set<ClaimRequest> insertReturning(Connection connection, List<ClaimRequest> chunk, LocalDateTime now)
			throws SQLException {
		Set<ClaimRequest> inserted = new HashSet<>();
		String verb = Objects.requireNonNull(this.dialect.skippingInsertVerb(), "a dialect with a skipping INSERT");
		try (PreparedStatement ps = connection.prepareStatement(this.sql.insertSkipping(verb, chunk.size()))) {
			ClaimInsert.noCursor(ps);
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
				if (!chunk.stream().map(ClaimOperations::withoutSource).toList().containsAll(inserted)) {
					throw this.claimInsert.alteredKey(chunk.get(0));
				}
				// IGNORE skips duplicates with a warning each, and stores a value a column cannot hold altered with one
				this.claimInsert.requireOnlyDuplicateWarnings(ps, chunk.get(0));
			}
		}
		return inserted;
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

	/** The (scope, key) of a request, the identity batch results are kept under. */
	static ClaimRequest withoutSource(ClaimRequest request) {
		return new ClaimRequest(request.scope(), request.key(), null);
	}

}
