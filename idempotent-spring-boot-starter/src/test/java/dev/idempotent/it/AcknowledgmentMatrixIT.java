package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractAcknowledgmentMatrixIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class AcknowledgmentMatrixIT {

	/** The acknowledgment matrix with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractAcknowledgmentMatrixIT {

	}

	/** The acknowledgment matrix with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractAcknowledgmentMatrixIT {

	}

}
