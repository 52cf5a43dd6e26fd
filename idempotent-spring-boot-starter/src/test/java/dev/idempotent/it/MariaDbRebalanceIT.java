package dev.idempotent.it;

/** The rebalance test with the ledger and the idempotency table in MariaDB. */
class MariaDbRebalanceIT extends AbstractRebalanceIT {

	MariaDbRebalanceIT() {
		super(ItDatabase.MARIADB);
	}

}
