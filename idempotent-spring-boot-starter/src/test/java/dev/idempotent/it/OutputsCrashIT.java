package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractOutputsCrashIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class OutputsCrashIT {

	/** Outputs survive a consumer killed with SIGKILL, on MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractOutputsCrashIT {

		MariaDb() {
			super(ItDatabase.MARIADB);
		}

	}

	/** Outputs survive a consumer killed with SIGKILL, on PostgreSQL. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractOutputsCrashIT {

		PostgreSql() {
			super(ItDatabase.POSTGRESQL);
		}

	}

}
