package dev.idempotent.it;

import org.junit.jupiter.api.Nested;

/** The scenarios of {@link AbstractHandBuiltContainerFactoryIT}, on PostgreSQL: one nested class per database. */
class HandBuiltContainerFactoryIT {

	/** The hand-built container factory tests with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractHandBuiltContainerFactoryIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
