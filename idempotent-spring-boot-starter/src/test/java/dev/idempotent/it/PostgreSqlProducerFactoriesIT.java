package dev.idempotent.it;

import org.springframework.test.context.TestPropertySource;

/** Outputs sent through a second producer factory, with the ledger and the idempotency table in PostgreSQL. */
@TestPropertySource(properties = { "spring.datasource.url=${IDEMPOTENT_POSTGRESQL_URL:jdbc:postgresql://127.0.0.1:5432/test}",
		"spring.datasource.username=${IDEMPOTENT_POSTGRESQL_USER:postgres}",
		"spring.datasource.password=${IDEMPOTENT_POSTGRESQL_PASSWORD:}" })
class PostgreSqlProducerFactoriesIT extends AbstractProducerFactoriesIT {

	@Override
	ItDatabase database() {
		return ItDatabase.POSTGRESQL;
	}

}
