package dev.idempotent.it;

/** A replying listener accepted with idempotent.replies=warn, with the idempotency table in PostgreSQL. */
class PostgreSqlRepliesIT extends AbstractRepliesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.POSTGRESQL;
	}

}
