package dev.idempotent.it;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The scenarios of {@link AbstractDatabaseOutageIT}, on MariaDB and PostgreSQL: one nested class per database. */
@Tag("matrix-b")
class DatabaseOutageIT {

	/** An outage of MariaDB, through a relay the test cuts, logs no ERROR. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractDatabaseOutageIT {

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

	/** An outage of PostgreSQL, through a relay the test cuts, logs no ERROR. */
	@Nested
	@Tag("postgresql")
	class PostgreSql extends AbstractDatabaseOutageIT {

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

}
