package dev.idempotent.actuate;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

import org.springframework.test.context.TestPropertySource;

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
	@Tag("postgresql")
	@TestPropertySource(properties = { "spring.datasource.url=${IDEMPOTENT_POSTGRESQL_URL:jdbc:postgresql://127.0.0.1:5432/test}",
			"spring.datasource.username=${IDEMPOTENT_POSTGRESQL_USER:postgres}",
			"spring.datasource.password=${IDEMPOTENT_POSTGRESQL_PASSWORD:}" })
	class PostgreSql extends AbstractIdempotencyEndpointIT {

		@Override
		protected String expectedDialect() {
			return "postgresql";
		}

	}

}
