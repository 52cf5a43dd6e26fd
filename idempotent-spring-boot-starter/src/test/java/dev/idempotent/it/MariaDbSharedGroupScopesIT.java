package dev.idempotent.it;

/** Two listeners of one consumer group, with the idempotency table in MariaDB. */
class MariaDbSharedGroupScopesIT extends AbstractSharedGroupScopesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
