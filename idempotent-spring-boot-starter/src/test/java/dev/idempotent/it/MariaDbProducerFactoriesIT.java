package dev.idempotent.it;

/** Outputs sent through a second producer factory, with the ledger and the idempotency table in MariaDB. */
class MariaDbProducerFactoriesIT extends AbstractProducerFactoriesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
