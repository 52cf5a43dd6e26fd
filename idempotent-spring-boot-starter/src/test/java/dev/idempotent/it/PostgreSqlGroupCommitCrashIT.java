package dev.idempotent.it;

/** The group commit crash tests with the ledger and the idempotency table in PostgreSQL. */
class PostgreSqlGroupCommitCrashIT extends AbstractGroupCommitCrashIT {

	PostgreSqlGroupCommitCrashIT() {
		super(ItDatabase.POSTGRESQL);
	}

}
