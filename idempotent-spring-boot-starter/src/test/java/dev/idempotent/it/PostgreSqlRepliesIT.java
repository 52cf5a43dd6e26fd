package dev.idempotent.it;

/** @SendTo replies stored with their claims, with the idempotency table in PostgreSQL. */
class PostgreSqlRepliesIT extends AbstractRepliesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.POSTGRESQL;
	}

}
