package dev.idempotent.it;

import org.junit.jupiter.api.Nested;

/** The scenarios of {@link AbstractRedisFastPathIT}, on PostgreSQL: one nested class per database. */
class RedisFastPathIT {

	/** The Redis fast path with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractRedisFastPathIT {

	}

}
