package dev.idempotent.retention;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The retention job on MariaDb (see {@link TestDatabases}). */
class MariaDbRetentionJobTest extends AbstractRetentionJobContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.mariadb();
	}

}
