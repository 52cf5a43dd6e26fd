package dev.idempotent.it.stacks;

import dev.idempotent.it.PostgreSqlDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractTwoDataSourcesStackIT}, on MariaDB and PostgreSQL: one nested class per database. */
class TwoDataSourcesStackIT {

	/** The two-DataSources stack on MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractTwoDataSourcesStackIT {

	}

	/** The two-DataSources stack on PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractTwoDataSourcesStackIT {

	}

}
