package dev.idempotent.conformance;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kit refuses a database it would damage: tables with its prefix that it did not create, or a registry table
 * that is not its own. It writes nothing then, and leaves those tables as they were.
 */
class RefusalIT {

	private final DataSource postgresql = TestDatabases.postgresql();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.postgresql);

	@Test
	void aTableWithTheKitsPrefixThatTheKitDidNotCreateIsRefusedAndLeftAlone() throws Exception {
		String prefix = KitProcess.uniquePrefix();
		String users = prefix + "orders";
		this.jdbc.execute("CREATE TABLE " + users + " (id INT PRIMARY KEY, amount INT)");
		try {
			this.jdbc.update("INSERT INTO " + users + " VALUES (1, 100)");

			KitProcess.Result result = KitProcess.run(TestDatabases.POSTGRESQL, "--table-prefix=" + prefix);

			assertThat(result.exitCode()).as(result.output()).isEqualTo(ConformanceKit.REFUSED);
			assertThat(result.output()).contains("REFUSED: tables [" + users + "] start with the kit's prefix")
				.contains("Nothing was written to the database.")
				.doesNotContain("VERDICT");
			assertThat(this.jdbc.queryForObject("SELECT amount FROM " + users, Integer.class)).isEqualTo(100);
			assertThat(KitTables.tablesStartingWith(this.postgresql, prefix)).containsExactly(users);
		}
		finally {
			this.jdbc.execute("DROP TABLE IF EXISTS " + users);
		}
	}

	@Test
	void aTableNamedLikeTheKitsRegistryButShapedOtherwiseIsRefused() throws Exception {
		String prefix = KitProcess.uniquePrefix();
		String registry = prefix + "registry";
		this.jdbc.execute("CREATE TABLE " + registry + " (id INT PRIMARY KEY, note VARCHAR(20))");
		try {
			KitProcess.Result result = KitProcess.run(TestDatabases.POSTGRESQL, "--table-prefix=" + prefix);

			assertThat(result.exitCode()).as(result.output()).isEqualTo(ConformanceKit.REFUSED);
			assertThat(result.output()).contains("REFUSED: table " + registry + " exists but is not the kit's registry");
			assertThat(KitTables.tablesStartingWith(this.postgresql, prefix)).containsExactly(registry);
		}
		finally {
			this.jdbc.execute("DROP TABLE IF EXISTS " + registry);
		}
	}

}
