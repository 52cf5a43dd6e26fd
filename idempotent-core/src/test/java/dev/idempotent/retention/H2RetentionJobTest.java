package dev.idempotent.retention;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The retention job on H2 (see {@link TestDatabases}). */
class H2RetentionJobTest extends AbstractRetentionJobContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.h2();
	}

}
