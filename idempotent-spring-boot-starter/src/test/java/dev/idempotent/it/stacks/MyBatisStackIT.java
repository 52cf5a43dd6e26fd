package dev.idempotent.it.stacks;

import dev.idempotent.it.PostgreSqlDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractMyBatisStackIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-a")
class MyBatisStackIT {

	/** The MyBatis stack on MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractMyBatisStackIT {

	}

	/** The MyBatis stack on PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractMyBatisStackIT {

	}

}
