package dev.idempotent.it;

import dev.idempotent.testsupport.TestDatabases;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** An outage of MariaDB, through a relay the test cuts, logs no ERROR. */
class MariaDbDatabaseOutageIT extends AbstractDatabaseOutageIT {

	private static TcpRelay relay;

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		relay = relayTo(TestDatabases.MARIADB, registry);
	}

	@Override
	TcpRelay relay() {
		return relay;
	}

}
