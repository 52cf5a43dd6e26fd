package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

import org.springframework.test.context.TestPropertySource;

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
	@Tag("postgresql")
	@TestPropertySource(properties = { "spring.datasource.url=${IDEMPOTENT_POSTGRESQL_URL:jdbc:postgresql://127.0.0.1:5432/test}",
			"spring.datasource.username=${IDEMPOTENT_POSTGRESQL_USER:postgres}",
			"spring.datasource.password=${IDEMPOTENT_POSTGRESQL_PASSWORD:}" })
	class PostgreSql extends AbstractBatchShapesIT {


	}

}
