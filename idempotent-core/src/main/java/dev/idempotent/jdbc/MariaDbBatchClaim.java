package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;

/**
 * The batch claim of MariaDB (10.5+): after the plain read of {@link ReadFirstBatchClaim}, the keys not seen are
 * inserted by one {@code INSERT IGNORE ... RETURNING}, which skips the keys committed since the read, or held by a
 * concurrent claim that then committed; each skipped key is then decided as a single claim decides its taken key,
 * with a locking read of its own row (a locking read of many keys at once can scan and lock the whole scope,
 * depending on the plan). As {@code IGNORE} also skips rows that violate another constraint and stores values the
 * column cannot hold altered, a returned key that is not one of the requested ones, or a skipped key without a row,
 * fails the claim (the transaction rolls back). Thread-safe.
 */
final class MariaDbBatchClaim extends ReadFirstBatchClaim {

	MariaDbBatchClaim(ClaimOperations operations) {
		super(operations);
	}

	@Override
	void claimAbsent(Connection connection, List<ClaimRequest> keys, LocalDateTime now,
			Map<ClaimRequest, ClaimResult> results) throws SQLException {
		if (keys.size() == 1) {
			claimSingle(connection, keys.get(0), now, results);
			return;
		}
		for (ClaimRequest request : this.operations.insertSkipping(connection, keys, now, results)) {
			results.put(ClaimOperations.withoutSource(request), this.operations.existing(connection, request, now));
		}
	}

}
