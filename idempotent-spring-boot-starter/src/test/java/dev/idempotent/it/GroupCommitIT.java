package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractGroupCommitIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class GroupCommitIT {

	/** The group commit tests with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractGroupCommitIT {

	}

	/** The group commit tests with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractGroupCommitIT {

	}

}
