package dev.idempotent.jdbc;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The operators' queries on the PostgreSQL test database (see {@link TestDatabases}). */
class PostgreSqlClaimInspectorTest extends AbstractClaimInspectorTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.postgresql();
	}

}
