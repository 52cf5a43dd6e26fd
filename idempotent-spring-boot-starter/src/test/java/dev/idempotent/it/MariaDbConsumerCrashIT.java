package dev.idempotent.it;

/** The crash tests with the ledger and the idempotency table in MariaDB. */
class MariaDbConsumerCrashIT extends AbstractConsumerCrashIT {

	MariaDbConsumerCrashIT() {
		super(ItDatabase.MARIADB);
	}

}
