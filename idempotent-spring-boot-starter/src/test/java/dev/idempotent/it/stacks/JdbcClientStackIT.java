package dev.idempotent.it.stacks;

import dev.idempotent.it.PostgreSqlDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractJdbcClientStackIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class JdbcClientStackIT {

	/** The JdbcClient stack on MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractJdbcClientStackIT {

	}

	/** The JdbcClient stack on PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractJdbcClientStackIT {

	}

}
