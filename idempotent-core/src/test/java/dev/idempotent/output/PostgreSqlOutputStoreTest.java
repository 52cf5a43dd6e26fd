package dev.idempotent.output;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The output store contract on PostgreSql (see {@link TestDatabases}). */
class PostgreSqlOutputStoreTest extends AbstractOutputStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.postgresql();
	}

}
