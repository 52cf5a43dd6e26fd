package dev.idempotent.it;

/** Outputs survive a consumer killed with SIGKILL, on PostgreSQL. */
class PostgreSqlOutputsCrashIT extends AbstractOutputsCrashIT {

	PostgreSqlOutputsCrashIT() {
		super(ItDatabase.POSTGRESQL);
	}

}
