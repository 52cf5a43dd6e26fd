package dev.idempotent.it;

/** A {@code @RetryableTopic} listener's scope, with the idempotency table in MariaDB. */
class MariaDbRetryTopicScopesIT extends AbstractRetryTopicScopesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
