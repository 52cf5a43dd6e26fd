package dev.idempotent.it.stacks;

import dev.idempotent.it.PostgreSqlDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

import org.springframework.test.context.TestPropertySource;

/** The scenarios of {@link AbstractJpaStackIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class JpaStackIT {

	/**
	 * The JPA stack on MariaDB. Through mysql-connector-j MariaDB reports itself as MySQL 5.5.5, so Hibernate would
	 * pick an unsupported MySQL dialect; MariaDB users name Hibernate's MariaDB dialect.
	 */
	@Nested
	@Tag("mariadb")
	@TestPropertySource(properties = "spring.jpa.database-platform=org.hibernate.dialect.MariaDBDialect")
	class MariaDb extends AbstractJpaStackIT {

	}

	/** The JPA stack on PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractJpaStackIT {

	}

}
