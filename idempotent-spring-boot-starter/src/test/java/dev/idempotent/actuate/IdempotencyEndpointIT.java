package dev.idempotent.actuate;

import dev.idempotent.it.PostgreSqlDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractIdempotencyEndpointIT}, on MariaDB and PostgreSQL: one nested class per database. */
class IdempotencyEndpointIT {

	/** The endpoint over HTTP on the MariaDB test database (the default of the tests' {@code application.yml}). */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractIdempotencyEndpointIT {

		@Override
		protected String expectedDialect() {
			return "mariadb";
		}

	}

	/** The endpoint over HTTP on the PostgreSQL test database. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractIdempotencyEndpointIT {

		@Override
		protected String expectedDialect() {
			return "postgresql";
		}

	}

}
