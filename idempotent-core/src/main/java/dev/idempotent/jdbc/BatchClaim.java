package dev.idempotent.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;

/**
 * How one database family claims a chunk of keys in few round trips ({@link JdbcClaimStore#claimAll}): one type per
 * family, all built on the single-claim statements of {@link ClaimOperations}.
 * <ul>
 * <li>{@link PostgreSqlBatchClaim}: a skipping INSERT first, then one plain read of the keys it skipped;</li>
 * <li>{@link MariaDbBatchClaim}: a plain read first, then a skipping {@code INSERT IGNORE ... RETURNING};</li>
 * <li>{@link BisectingBatchClaim} (MySQL, H2): a plain read first, then a multi-row INSERT of all rows or none,
 * bisected on a duplicate.</li>
 * </ul>
 * As for a single claim, the decision for each key comes from an INSERT's own result; a read only finds keys whose
 * rows already SUCCEEDED. Implementations are thread-safe.
 */
interface BatchClaim {

	/**
	 * Claim a chunk of keys of one scope, in key order, with distinct keys, on the connection of the caller's
	 * transaction.
	 * @param connection the transaction's connection
	 * @param chunk the requests, at most {@value JdbcClaimStore#CHUNK}
	 * @param now the time written to the rows (UTC)
	 * @return the result of each request, by {@link ClaimOperations#withoutSource request without its source}
	 * @throws SQLException on a database error
	 */
	Map<ClaimRequest, ClaimResult> claimChunk(Connection connection, List<ClaimRequest> chunk, LocalDateTime now)
			throws SQLException;

	/**
	 * The strategy of a dialect.
	 * @param operations the single-claim statements of the table
	 * @return the strategy, never {@code null}
	 */
	static BatchClaim of(ClaimOperations operations) {
		return switch (operations.dialect()) {
			case POSTGRESQL -> new PostgreSqlBatchClaim(operations);
			case MARIADB -> new MariaDbBatchClaim(operations);
			case MYSQL, H2 -> new BisectingBatchClaim(operations);
		};
	}

}
