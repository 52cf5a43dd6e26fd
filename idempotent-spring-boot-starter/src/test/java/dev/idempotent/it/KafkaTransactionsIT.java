package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractKafkaTransactionsIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class KafkaTransactionsIT {

	/** Consume-process-produce under Kafka transactions with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractKafkaTransactionsIT {

		@Override
		ItDatabase database() {
			return ItDatabase.MARIADB;
		}

	}

	/** Consume-process-produce under Kafka transactions with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractKafkaTransactionsIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
