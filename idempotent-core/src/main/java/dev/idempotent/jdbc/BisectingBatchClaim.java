package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;

/**
 * The batch claim of MySQL (no {@code RETURNING}) and H2, and the fallback of a database without a skipping
 * multi-row INSERT: after the plain read of {@link ReadFirstBatchClaim}, the keys not seen are inserted by one
 * multi-row INSERT. A duplicate fails the whole statement, which then has inserted nothing, and each half of its keys
 * is claimed the same way, down to single keys, which are claimed as a single claim: one key committed by another
 * transaction costs about log2(keys) extra statements instead of one per key. Thread-safe.
 */
final class BisectingBatchClaim extends ReadFirstBatchClaim {

	BisectingBatchClaim(ClaimOperations operations) {
		super(operations);
	}

	@Override
	void claimAbsent(Connection connection, List<ClaimRequest> keys, LocalDateTime now,
			Map<ClaimRequest, ClaimResult> results) throws SQLException {
		if (keys.size() == 1) {
			claimSingle(connection, keys.get(0), now, results);
			return;
		}
		if (this.operations.insertAll(connection, keys, now)) {
			keys.forEach((request) -> results.put(ClaimOperations.withoutSource(request), new ClaimResult.Claimed(false)));
			return;
		}
		int half = keys.size() / 2;
		claimAbsent(connection, keys.subList(0, half), now, results);
		claimAbsent(connection, keys.subList(half, keys.size()), now, results);
	}

}
