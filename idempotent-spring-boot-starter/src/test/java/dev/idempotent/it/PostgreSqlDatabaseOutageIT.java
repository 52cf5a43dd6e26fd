package dev.idempotent.it;

import dev.idempotent.testsupport.TestDatabases;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** An outage of PostgreSQL, through a relay the test cuts, logs no ERROR. */
class PostgreSqlDatabaseOutageIT extends AbstractDatabaseOutageIT {

	private static TcpRelay relay;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		relay = relayTo(TestDatabases.POSTGRESQL, registry);
	}

	@Override
	TcpRelay relay() {
		return relay;
	}

}
