package dev.idempotent.it;

/** A {@code @RetryableTopic} listener's scope, with the idempotency table in PostgreSQL. */
class PostgreSqlRetryTopicScopesIT extends AbstractRetryTopicScopesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.POSTGRESQL;
	}

}
