package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractGroupCommitCrashIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class GroupCommitCrashIT {

	/** The group commit crash tests with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractGroupCommitCrashIT {

		MariaDb() {
			super(ItDatabase.MARIADB);
		}

	}

	/** The group commit crash tests with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractGroupCommitCrashIT {

		PostgreSql() {
			super(ItDatabase.POSTGRESQL);
		}

	}

}
