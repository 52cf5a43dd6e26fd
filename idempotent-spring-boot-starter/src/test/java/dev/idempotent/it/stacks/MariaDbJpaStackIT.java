package dev.idempotent.it.stacks;

import org.springframework.test.context.TestPropertySource;

/**
 * The JPA stack on MariaDB. Through mysql-connector-j MariaDB reports itself as MySQL 5.5.5, so Hibernate would
 * pick an unsupported MySQL dialect; MariaDB users name Hibernate's MariaDB dialect.
 */
@TestPropertySource(properties = "spring.jpa.database-platform=org.hibernate.dialect.MariaDBDialect")
class MariaDbJpaStackIT extends AbstractJpaStackIT {

}
