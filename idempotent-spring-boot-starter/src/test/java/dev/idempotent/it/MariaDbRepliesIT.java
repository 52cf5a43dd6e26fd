package dev.idempotent.it;

/** @SendTo replies stored with their claims, with the idempotency table in MariaDB. */
class MariaDbRepliesIT extends AbstractRepliesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
