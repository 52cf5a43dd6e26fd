package dev.idempotent.conformance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kit refuses a database it would damage: tables with its prefix that it did not create, or a registry table
 * that is not its own. It writes nothing then, and leaves those tables as they were. The kit runs in this JVM (it
 * stops before any check, so the jar's own JVM would only add its start-up time).
 */
class RefusalIT {

	private final DataSource postgresql = TestDatabases.postgresql();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.postgresql);

	private static KitProcess.Result runInProcess(String... args) {
		TestDatabases.Connection database = TestDatabases.POSTGRESQL;
		List<String> command = new ArrayList<>(List.of("--url=" + database.url(),
				"--user=" + database.user()));
		command.addAll(List.of(args));
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		int exit = ConformanceKit.run(command.toArray(String[]::new),
				Map.of(KitOptions.PASSWORD_VARIABLE, database.password()),
				new PrintStream(output, true, StandardCharsets.UTF_8));
		return new KitProcess.Result(exit, output.toString(StandardCharsets.UTF_8));
	}

	@Test
	void aTableWithTheKitsPrefixThatTheKitDidNotCreateIsRefusedAndLeftAlone() throws Exception {
		String prefix = KitProcess.uniquePrefix();
		String users = prefix + "orders";
		this.jdbc.execute("CREATE TABLE " + users + " (id INT PRIMARY KEY, amount INT)");
		try {
			this.jdbc.update("INSERT INTO " + users + " VALUES (1, 100)");

			KitProcess.Result result = runInProcess("--table-prefix=" + prefix);

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
			KitProcess.Result result = runInProcess("--table-prefix=" + prefix);

			assertThat(result.exitCode()).as(result.output()).isEqualTo(ConformanceKit.REFUSED);
			assertThat(result.output()).contains("REFUSED: table " + registry + " exists but is not the kit's registry");
			assertThat(KitTables.tablesStartingWith(this.postgresql, prefix)).containsExactly(registry);
		}
		finally {
			this.jdbc.execute("DROP TABLE IF EXISTS " + registry);
		}
	}

}
