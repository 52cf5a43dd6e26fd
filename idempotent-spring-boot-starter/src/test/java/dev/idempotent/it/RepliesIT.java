package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractRepliesIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class RepliesIT {

	/** @SendTo replies stored with their claims, with the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractRepliesIT {

		@Override
		ItDatabase database() {
			return ItDatabase.MARIADB;
		}

	}

	/** @SendTo replies stored with their claims, with the idempotency table in PostgreSQL. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractRepliesIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
