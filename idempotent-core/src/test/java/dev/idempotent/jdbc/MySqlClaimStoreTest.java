package dev.idempotent.jdbc;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mysql.MySQLContainer;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim store contract on MySQL 8 in a container. Skipped, with Testcontainers' reason, where no Docker
 * engine runs (as on the development machines, which test MariaDB and PostgreSQL locally instead).
 */
@Testcontainers(disabledWithoutDocker = true)
class MySqlClaimStoreTest extends AbstractClaimStoreContractTest {

	@Container
	static final MySQLContainer mysql = new MySQLContainer("mysql:8.4");

	private static DataSource dataSource;

	/**
	 * On MySQL 8 utf8mb4_bin is PAD SPACE ('a' = 'a '), and latin1 and utf8mb3 cannot hold every character: the check
	 * refuses them, naming the DDL that fixes each column (utf8mb4_0900_bin, NO PAD, which the shipped table uses), and
	 * the table passes once that DDL ran.
	 */
	@ParameterizedTest
	@CsvSource({ "utf8mb4, utf8mb4_bin, uses collation utf8mb4_bin", "latin1, latin1_bin, uses character set latin1",
			"utf8mb3, utf8mb3_bin, uses character set utf8mb3" })
	void theStartupCheckRefusesKeyColumnsOtherThanUtf8mb4WithANoPadBinaryCollation(String charset, String collation,
			String problem) {
		TableName weak = new TableName(this.table.value() + "_" + charset);
		String ddl = new SchemaInitializer(this.dataSource, weak, SqlDialect.MYSQL).ddl()
			.replaceAll("(?m)^--.*$", "")
			.replace("CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin", "CHARACTER SET " + charset + " COLLATE " + collation);
		try {
			this.jdbc.execute(ddl);
			SchemaValidator validator = new SchemaValidator(this.dataSource, weak, SqlDialect.MYSQL, 128);
			List<String> problems = validator.problems();

			assertThat(problems).hasSize(2);
			for (String column : List.of("scope", "idempotency_key")) {
				String fix = "ALTER TABLE " + weak + " MODIFY " + column + " varchar(128) CHARACTER SET utf8mb4 COLLATE"
						+ " utf8mb4_0900_bin NOT NULL";
				assertThat(problems).filteredOn((found) -> found.startsWith("column " + column + " "))
					.singleElement()
					.asString()
					.contains(problem, fix);
				this.jdbc.execute(fix);
			}
			assertThat(validator.problems()).isEmpty();
		}
		finally {
			TestDatabases.drop(this.dataSource, weak.value());
		}
	}

	@Override
	protected DataSource dataSource() {
		if (dataSource == null) {
			dataSource = TestDatabases.pool(new TestDatabases.Connection(mysql.getJdbcUrl(), "root", mysql.getPassword()),
					"SET time_zone = '+05:00', lc_messages = 'de_DE'");
		}
		return dataSource;
	}

	@Override
	protected TestDatabases.Connection connection() {
		return new TestDatabases.Connection(mysql.getJdbcUrl(), "root", mysql.getPassword());
	}

	@Override
	protected String lockTimeoutSql() {
		return "SET innodb_lock_wait_timeout = 1";
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.MYSQL;
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		awaitCount(jdbc, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", waiters.size());
	}

	@AfterAll
	static void closePool() {
		if (dataSource instanceof AutoCloseable closeable) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}
		dataSource = null;
	}

}
