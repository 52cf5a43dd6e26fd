package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractBatchShapesIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class BatchShapesIT {

	/** The batch-listener shapes with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractBatchShapesIT {

	}

	/** The batch-listener shapes with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractBatchShapesIT {

	}

}
