package dev.idempotent.it.stacks;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

import org.springframework.test.context.TestPropertySource;

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
	@Tag("postgresql")
	@TestPropertySource(properties = { "spring.datasource.url=${IDEMPOTENT_POSTGRESQL_URL:jdbc:postgresql://127.0.0.1:5432/test}",
			"spring.datasource.username=${IDEMPOTENT_POSTGRESQL_USER:postgres}",
			"spring.datasource.password=${IDEMPOTENT_POSTGRESQL_PASSWORD:}" })
	class PostgreSql extends AbstractMyBatisStackIT {


	}

}
