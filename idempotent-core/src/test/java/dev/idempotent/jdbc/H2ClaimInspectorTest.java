package dev.idempotent.jdbc;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The operators' queries on H2 in memory, MySQL mode. */
class H2ClaimInspectorTest extends AbstractClaimInspectorTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.h2();
	}

}
