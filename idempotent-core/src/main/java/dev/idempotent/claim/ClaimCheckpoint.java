package dev.idempotent.claim;

/**
 * A mark a {@link ClaimStore} sets in a transaction right after claims that make work run, and checks right before
 * that transaction commits: is the transaction open on the connection still the one that holds those claims?
 * <p>A database can end a transaction without an error reaching the application, and the next statement then begins
 * a new one: a MariaDB Galera node's brute-force abort that lands during a bulk INSERT (the server answers the
 * statement as if every row had been written), a deadlock whose exception the work caught (InnoDB and H2 roll the
 * whole transaction back). Committing would then commit only what ran after it, or nothing, with no claim row, and the
 * caller would commit the offsets of records whose claims and writes are gone. On PostgreSQL a failed statement
 * aborts the transaction instead, and the COMMIT that follows silently rolls back. The executor therefore sets a
 * checkpoint after the claims and checks it after the work; a failed check rolls the transaction back and the work
 * runs again (or, for an aborted PostgreSQL transaction, the record fails).
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ClaimCheckpoint {

	/** No check: for stores whose transactions cannot end unnoticed. */
	ClaimCheckpoint NONE = () -> {
	};

	/**
	 * Check that the transaction still holds the claims made before this checkpoint was set.
	 * @throws TransientClaimException if the database rolled the transaction back (a conflict, a deadlock): the
	 * caller rolls back and runs the claims and the work again
	 * @throws org.springframework.dao.DataAccessException if the transaction can only roll back for another reason
	 * (a failed statement on PostgreSQL), or the check itself fails
	 */
	void requireHeld();

}
