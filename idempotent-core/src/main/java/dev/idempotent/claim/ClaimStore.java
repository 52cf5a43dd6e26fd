package dev.idempotent.claim;

import java.util.ArrayList;
import java.util.List;

/**
 * Storage SPI for claims in {@link ClaimMode#TRANSACTIONAL} mode. Implementations are atomic per call and join the
 * caller's transaction: every method runs in the transaction bound to the current thread, so that the claim and
 * the business write commit or roll back together.
 * <p>A claim is final: the key's row is SUCCEEDED from the moment the caller's transaction commits (no other
 * transaction can see it earlier), and gone if it rolls back. There is therefore no separate "mark SUCCEEDED"
 * statement: it would cost a round trip per record and show nobody anything.
 * <p>Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
public interface ClaimStore {

	/**
	 * Claim a key: one atomic INSERT guarded by a unique index on (scope, key), never a SELECT before it.
	 * A FAILED row is taken over; any other existing row is an idempotent hit. The claim commits or rolls back
	 * with the caller's transaction.
	 * @param request what to claim, never {@code null}
	 * @return {@link ClaimResult.Claimed} if the caller now owns the key, {@link ClaimResult.Hit} otherwise
	 * @throws TransientClaimException on a deadlock or lock-wait timeout between concurrent claims; the caller
	 * should retry the whole transaction
	 * @throws org.springframework.dao.DataAccessException on any other database failure
	 */
	ClaimResult claim(ClaimRequest request);

	/**
	 * Claim several keys in the caller's transaction, in as few round trips as the database allows. The requests
	 * must have distinct (scope, key) pairs. The default claims them one by one. As with {@link #claim}, the
	 * decision for each key must come from an INSERT's own result; a read may only find keys whose rows already
	 * SUCCEEDED.
	 * @param requests what to claim, never {@code null}
	 * @return one result per request, in the same order
	 * @throws TransientClaimException on a deadlock or lock-wait timeout
	 * @throws org.springframework.dao.DataAccessException on any other database failure
	 */
	default List<ClaimResult> claimAll(List<ClaimRequest> requests) {
		List<ClaimResult> results = new ArrayList<>(requests.size());
		for (ClaimRequest request : requests) {
			results.add(claim(request));
		}
		return results;
	}

	/**
	 * Set a checkpoint in the caller's transaction, right after claims that make work run: the caller checks it after
	 * the work, before the commit (see {@link ClaimCheckpoint}). Every store decides: one whose transactions cannot end
	 * without the application seeing an error returns {@link ClaimCheckpoint#NONE}; a store that decorates another
	 * must return the other's, or its transactions go unchecked.
	 * @return the checkpoint, never {@code null}
	 * @throws TransientClaimException if the transaction was already rolled back by the database
	 * @throws org.springframework.dao.DataAccessException if the checkpoint cannot be set
	 */
	ClaimCheckpoint checkpoint();

	/**
	 * Tell whether a failure is one the database reports when it rolls the whole transaction back for a conflict with
	 * another transaction: a deadlock victim, a certification failure of a Galera cluster (both 1213, SQLState 40001 on
	 * MySQL and MariaDB), a serialization failure (40001), a PostgreSQL deadlock (40P01). The remedy is to run the
	 * transaction again; the executor does so for such a failure of the commit or of the work, as it does for a
	 * deadlock of the claim, instead of failing the record. Lock-wait timeouts are not such failures: they fail one
	 * statement and leave the transaction open. The default says no (such failures then fail the record); a store that
	 * decorates another should ask the other.
	 * @param failure the failure, never {@code null}
	 * @return whether it is such a conflict
	 */
	default boolean isConflict(Throwable failure) {
		return false;
	}

	/**
	 * Record that a key's delivery was given up on (dead-lettered): its row becomes FAILED with the number of
	 * attempts and the last error, so that a replay can claim it again. Runs in the caller's transaction, which
	 * must be a new one: the business transaction that failed has been rolled back with its claim. A SUCCEEDED
	 * row is never downgraded.
	 * @param request the request whose work failed, never {@code null}
	 * @param attempts how many times the delivery was attempted, 1 or more
	 * @param lastError a description of the last error, at most 1,000 characters
	 * @throws org.springframework.dao.DataAccessException on a database failure
	 */
	void markFailed(ClaimRequest request, int attempts, String lastError);

}
