package dev.idempotent.it;

/** Outputs of claims with the ledger, the idempotency table and the output table in MariaDB. */
class MariaDbOutputsIT extends AbstractOutputsIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
