package dev.idempotent.it;

/** The hand-built container factory tests with the ledger and the idempotency table in MariaDB. */
class MariaDbHandBuiltContainerFactoryIT extends AbstractHandBuiltContainerFactoryIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
