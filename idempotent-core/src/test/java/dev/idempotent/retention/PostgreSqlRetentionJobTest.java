package dev.idempotent.retention;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The retention job on PostgreSql (see {@link TestDatabases}). */
class PostgreSqlRetentionJobTest extends AbstractRetentionJobContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.postgresql();
	}

}
