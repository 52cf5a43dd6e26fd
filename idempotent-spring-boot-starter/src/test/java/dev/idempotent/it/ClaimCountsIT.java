package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractClaimCountsIT}, on MariaDB and PostgreSQL: one nested class per database. */
class ClaimCountsIT {

	/** Claim counts per record with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractClaimCountsIT {

	}

	/** Claim counts per record with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractClaimCountsIT {

	}

}
