package dev.idempotent.it;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;

/**
 * The databases the end-to-end tests run on, as Spring Boot properties for the applications under test and as
 * a data source for the test's own checks.
 */
enum ItDatabase {

	MARIADB(TestDatabases.MARIADB) {
		@Override
		DataSource dataSource() {
			return TestDatabases.mariadb();
		}
	},

	POSTGRESQL(TestDatabases.POSTGRESQL) {
		@Override
		DataSource dataSource() {
			return TestDatabases.postgresql();
		}
	};

	private final TestDatabases.Connection connection;

	ItDatabase(TestDatabases.Connection connection) {
		this.connection = connection;
	}

	/** A data source for the test's own checks. */
	abstract DataSource dataSource();

	/** Spring Boot properties that point an application at this database. */
	List<String> properties() {
		return List.of("spring.datasource.url=" + this.connection.url(),
				"spring.datasource.username=" + this.connection.user(),
				"spring.datasource.password=" + this.connection.password());
	}

	/** The same properties as command-line arguments. */
	List<String> arguments() {
		return properties().stream().map((property) -> "--" + property).toList();
	}

}
