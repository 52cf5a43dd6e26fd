package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;

/**
 * The batch claim of PostgreSQL: one multi-row {@code INSERT ... ON CONFLICT (scope, idempotency_key) DO NOTHING
 * RETURNING} reports the new keys (it absorbs duplicates without an error, which would abort the transaction, and
 * takes no lock on the rows of keys that exist); the keys it skipped are read back with one plain read, which sees
 * the latest committed rows, and decided as a single claim decides its taken key (a FAILED row is taken over).
 * Thread-safe.
 */
final class PostgreSqlBatchClaim implements BatchClaim {

	private final ClaimOperations operations;

	PostgreSqlBatchClaim(ClaimOperations operations) {
		this.operations = operations;
	}

	@Override
	public Map<ClaimRequest, ClaimResult> claimChunk(Connection connection, List<ClaimRequest> chunk,
			LocalDateTime now) throws SQLException {
		Map<ClaimRequest, ClaimResult> results = new HashMap<>();
		List<ClaimRequest> skipped = this.operations.insertSkipping(connection, chunk, now, results);
		if (!skipped.isEmpty()) {
			Map<String, ClaimResult.Hit> rows = this.operations.readVisible(connection, skipped);
			for (ClaimRequest request : skipped) {
				results.put(ClaimOperations.withoutSource(request),
						this.operations.decide(connection, request, rows.get(request.key()), now));
			}
		}
		return results;
	}

}
