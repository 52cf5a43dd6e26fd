package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractRebalanceIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class RebalanceIT {

	/** The rebalance test with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractRebalanceIT {

		MariaDb() {
			super(ItDatabase.MARIADB);
		}

	}

	/** The rebalance test with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractRebalanceIT {

		PostgreSql() {
			super(ItDatabase.POSTGRESQL);
		}

	}

}
