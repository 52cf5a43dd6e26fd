package dev.idempotent.it;

/** A replying listener accepted with idempotent.replies=warn, with the idempotency table in MariaDB. */
class MariaDbRepliesIT extends AbstractRepliesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
