package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;

/**
 * The batch claim of the MySQL family and H2: a plain read first finds the keys this transaction can already see
 * (skipped under READ UNCOMMITTED, where it could see uncommitted claims); those that SUCCEEDED are hits (a committed
 * SUCCEEDED row is final), and they take no lock; keys with another visible row (FAILED rows to take over, leases)
 * are claimed one by one; the keys not seen are claimed by {@link #claimAbsent}, which subclasses shape.
 * Thread-safe.
 */
abstract sealed class ReadFirstBatchClaim implements BatchClaim permits MariaDbBatchClaim, BisectingBatchClaim {

	/** The single-claim statements this strategy builds on. */
	protected final ClaimOperations operations;

	ReadFirstBatchClaim(ClaimOperations operations) {
		this.operations = operations;
	}

	@Override
	public final Map<ClaimRequest, ClaimResult> claimChunk(Connection connection, List<ClaimRequest> chunk,
			LocalDateTime now) throws SQLException {
		// under READ UNCOMMITTED the read could see another transaction's claim that will still roll back
		Map<String, ClaimResult.Hit> visible = (connection.getTransactionIsolation() == Connection.TRANSACTION_READ_UNCOMMITTED)
				? Map.of() : this.operations.readVisible(connection, chunk);
		Map<ClaimRequest, ClaimResult> results = new HashMap<>();
		List<ClaimRequest> absent = new ArrayList<>();
		for (ClaimRequest request : chunk) {
			ClaimResult.Hit seen = visible.get(request.key());
			if (seen == null) {
				absent.add(request);
			}
			else if (seen.status() == ClaimStatus.SUCCEEDED) {
				results.put(ClaimOperations.withoutSource(request), seen);
			}
			else {
				results.put(ClaimOperations.withoutSource(request), this.operations.claimOne(connection, request, now));
			}
		}
		if (!absent.isEmpty()) {
			claimAbsent(connection, absent, now, results);
		}
		return results;
	}

	/**
	 * Claim keys the transaction did not see, in key order (so that concurrent batches lock their common keys in the
	 * same order), putting each one's result into {@code results}.
	 * @param keys the keys, never empty
	 */
	abstract void claimAbsent(Connection connection, List<ClaimRequest> keys, LocalDateTime now,
			Map<ClaimRequest, ClaimResult> results) throws SQLException;

	/** Claim one key as a single claim would, putting its result into {@code results}. */
	final void claimSingle(Connection connection, ClaimRequest request, LocalDateTime now,
			Map<ClaimRequest, ClaimResult> results) throws SQLException {
		results.put(ClaimOperations.withoutSource(request), this.operations.claimOne(connection, request, now));
	}

}
