package dev.idempotent.it;

/** The rebalance test with the ledger and the idempotency table in PostgreSQL. */
class PostgreSqlRebalanceIT extends AbstractRebalanceIT {

	PostgreSqlRebalanceIT() {
		super(ItDatabase.POSTGRESQL);
	}

}
