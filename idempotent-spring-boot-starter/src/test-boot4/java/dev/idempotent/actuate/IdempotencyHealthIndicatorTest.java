package dev.idempotent.actuate;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import javax.sql.DataSource;

import dev.idempotent.boot4.IdempotencyHealthIndicator;
import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code idempotency} health contributor against the real MariaDB and PostgreSQL test databases (their pools
 * are shared by the JVM's tests, so JUnit must not close them after each case).
 */
class IdempotencyHealthIndicatorTest {

	static Stream<Named<DataSource>> databases() {
		return Stream.of(Named.of("MariaDB", TestDatabases.mariadb()), Named.of("PostgreSQL", TestDatabases.postgresql()));
	}

	@ParameterizedTest(autoCloseArguments = false)
	@MethodSource("databases")
	void upWhenTheTableAnswersAndHasItsUniqueIndex(DataSource dataSource) {
		SqlDialect dialect = SqlDialect.detect(dataSource);
		TableName table = TestDatabases.createClaimTable(dataSource, dialect);
		try {
			Health health = indicator(dataSource, table, dialect).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("table", table.value()).containsEntry("dialect", dialect.id());
		}
		finally {
			TestDatabases.drop(dataSource, table.value());
		}
	}

	@ParameterizedTest(autoCloseArguments = false)
	@MethodSource("databases")
	void downNamingTheMissingUniqueIndex(DataSource dataSource) {
		SqlDialect dialect = SqlDialect.detect(dataSource);
		TableName table = new TableName("idem_noidx_" + Long.toHexString(System.nanoTime()));
		String ddl = new SchemaInitializer(dataSource, table, dialect).ddl()
			.replaceAll("(?m)^--.*$", "")
			.replaceAll(",\\s*(UNIQUE KEY|CONSTRAINT) uk_\\w+ (UNIQUE )?\\(scope, idempotency_key\\)", "");
		assertThat(ddl).doesNotContain("UNIQUE");
		new JdbcTemplate(dataSource).execute((org.springframework.jdbc.core.ConnectionCallback<Object>) (connection) -> {
			org.springframework.jdbc.datasource.init.ScriptUtils.executeSqlScript(connection,
					new org.springframework.core.io.ByteArrayResource(ddl.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
			return null;
		});
		try {
			Health health = indicator(dataSource, table, dialect).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("table", table.value())
				.containsEntry("dialect", dialect.id())
				.containsEntry("reason", "the idempotency table cannot guarantee once-only processing: no UNIQUE "
						+ "index covers exactly (scope, idempotency_key): duplicates would not be detected")
				.containsEntry("problems", List.of(
						"no UNIQUE index covers exactly (scope, idempotency_key): duplicates would not be detected"));
		}
		finally {
			TestDatabases.drop(dataSource, table.value());
		}
	}

	@ParameterizedTest(autoCloseArguments = false)
	@MethodSource("databases")
	void downWhenTheTableDoesNotAnswer(DataSource dataSource) {
		SqlDialect dialect = SqlDialect.detect(dataSource);
		TableName missing = new TableName("idem_missing_" + Long.toHexString(System.nanoTime()));
		Health health = indicator(dataSource, missing, dialect).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		Map<String, Object> details = health.getDetails();
		assertThat(details).containsEntry("reason",
				"the idempotency table does not answer a lookup by (scope, idempotency_key)");
		assertThat(details.get("error")).asString().startsWith("org.springframework.jdbc.BadSqlGrammarException");
	}

	private static IdempotencyHealthIndicator indicator(DataSource dataSource, TableName table, SqlDialect dialect) {
		return new IdempotencyHealthIndicator(new IdempotencyHealthCheck(new ClaimInspector(dataSource, table, dialect),
				new SchemaValidator(dataSource, table, dialect, 128)));
	}

}
