package dev.idempotent.it;

/** The group commit crash tests with the ledger and the idempotency table in MariaDB. */
class MariaDbGroupCommitCrashIT extends AbstractGroupCommitCrashIT {

	MariaDbGroupCommitCrashIT() {
		super(ItDatabase.MARIADB);
	}

}
