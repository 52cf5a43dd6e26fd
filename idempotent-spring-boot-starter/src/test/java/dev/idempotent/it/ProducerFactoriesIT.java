package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractProducerFactoriesIT}, on MariaDB and PostgreSQL: one nested class per database. */
class ProducerFactoriesIT {

	/** Outputs sent through a second producer factory, with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractProducerFactoriesIT {

		@Override
		ItDatabase database() {
			return ItDatabase.MARIADB;
		}

	}

	/** Outputs sent through a second producer factory, with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractProducerFactoriesIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
