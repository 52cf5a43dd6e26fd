package dev.idempotent.jdbc;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The operators' queries on the MariaDB test database (see {@link TestDatabases}). */
class MariaDbClaimInspectorTest extends AbstractClaimInspectorTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.mariadb();
	}

}
