package dev.idempotent.it;

/** Consume-process-produce under Kafka transactions with the ledger and the idempotency table in MariaDB. */
class MariaDbKafkaTransactionsIT extends AbstractKafkaTransactionsIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
