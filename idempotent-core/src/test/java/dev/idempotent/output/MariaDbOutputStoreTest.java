package dev.idempotent.output;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The output store contract on MariaDb (see {@link TestDatabases}). */
class MariaDbOutputStoreTest extends AbstractOutputStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.mariadb();
	}

}
