package dev.idempotent.it.stacks;

import org.springframework.test.context.TestPropertySource;

/** The @RetryableTopic stack on PostgreSQL. */
@TestPropertySource(properties = { "spring.datasource.url=${IDEMPOTENT_POSTGRESQL_URL:jdbc:postgresql://127.0.0.1:5432/test}",
		"spring.datasource.username=${IDEMPOTENT_POSTGRESQL_USER:postgres}",
		"spring.datasource.password=${IDEMPOTENT_POSTGRESQL_PASSWORD:}" })
class PostgreSqlRetryTopicStackIT extends AbstractRetryTopicStackIT {

}
