package dev.idempotent.output;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/** The output store contract on H2 (see {@link TestDatabases}). */
class H2OutputStoreTest extends AbstractOutputStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.h2();
	}

}
