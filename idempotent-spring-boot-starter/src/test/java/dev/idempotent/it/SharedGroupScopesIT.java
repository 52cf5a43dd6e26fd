package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractSharedGroupScopesIT}, on PostgreSQL: one nested class per database. */
class SharedGroupScopesIT {

	/** Two listeners of one consumer group, with the idempotency table in PostgreSQL. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractSharedGroupScopesIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
