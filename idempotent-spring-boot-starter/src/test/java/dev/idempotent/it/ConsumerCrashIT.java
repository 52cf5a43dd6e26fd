package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractConsumerCrashIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class ConsumerCrashIT {

	/** The crash tests with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractConsumerCrashIT {

		MariaDb() {
			super(ItDatabase.MARIADB);
		}

	}

	/** The crash tests with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractConsumerCrashIT {

		PostgreSql() {
			super(ItDatabase.POSTGRESQL);
		}

	}

}
