package dev.idempotent.it;

/** Two listeners of one consumer group, with the idempotency table in PostgreSQL. */
class PostgreSqlSharedGroupScopesIT extends AbstractSharedGroupScopesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.POSTGRESQL;
	}

}
