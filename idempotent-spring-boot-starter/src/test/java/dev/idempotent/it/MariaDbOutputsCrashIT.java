package dev.idempotent.it;

/** Outputs survive a consumer killed with SIGKILL, on MariaDB. */
class MariaDbOutputsCrashIT extends AbstractOutputsCrashIT {

	MariaDbOutputsCrashIT() {
		super(ItDatabase.MARIADB);
	}

}
