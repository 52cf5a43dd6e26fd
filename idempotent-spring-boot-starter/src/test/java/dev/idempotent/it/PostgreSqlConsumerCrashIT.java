package dev.idempotent.it;

/** The crash tests with the ledger and the idempotency table in PostgreSQL. */
class PostgreSqlConsumerCrashIT extends AbstractConsumerCrashIT {

	PostgreSqlConsumerCrashIT() {
		super(ItDatabase.POSTGRESQL);
	}

}
