package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractOutputsIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class OutputsIT {

	/** Outputs of claims with the ledger, the idempotency table and the output table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractOutputsIT {

		@Override
		ItDatabase database() {
			return ItDatabase.MARIADB;
		}

	}

	/** Outputs of claims with the ledger, the idempotency table and the output table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractOutputsIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
