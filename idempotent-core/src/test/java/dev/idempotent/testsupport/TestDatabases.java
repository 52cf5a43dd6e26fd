package dev.idempotent.testsupport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The databases the tests talk to: MariaDB on 127.0.0.1:3306 (root, no password, database {@code test}),
 * PostgreSQL on 127.0.0.1:5432 (postgres, trust, database {@code test}) and H2 in memory. Override them with
 * {@code IDEMPOTENT_MARIADB_URL|USER|PASSWORD} and {@code IDEMPOTENT_POSTGRESQL_URL|USER|PASSWORD}.
 * <p>Every connection runs in a session time zone other than the JVM's (which is UTC+8 in tests) and MariaDB
 * answers in German, so that tests catch times written in a local zone and errors recognised by their text.
 * Idempotency tables are created from the shipped DDL.
 */
public final class TestDatabases {

	/** The MariaDB test database. */
	public static final Connection MARIADB = new Connection(env("IDEMPOTENT_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/test"),
			env("IDEMPOTENT_MARIADB_USER", "root"), env("IDEMPOTENT_MARIADB_PASSWORD", ""));

	/** The PostgreSQL test database. */
	public static final Connection POSTGRESQL = new Connection(
			env("IDEMPOTENT_POSTGRESQL_URL", "jdbc:postgresql://127.0.0.1:5432/test"),
			env("IDEMPOTENT_POSTGRESQL_USER", "postgres"), env("IDEMPOTENT_POSTGRESQL_PASSWORD", ""));

	/** The in-memory H2 test database. */
	public static final Connection H2 = new Connection("jdbc:h2:mem:idempotent;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", "");

	private static final ConcurrentHashMap<String, DataSource> pools = new ConcurrentHashMap<>();

	private TestDatabases() {
	}

	/** A pooled data source on the MariaDB test database, shared by the tests of one JVM. */
	public static DataSource mariadb() {
		return pools.computeIfAbsent("mariadb",
				(name) -> pool(MARIADB, "SET time_zone = '+05:00', lc_messages = 'de_DE'"));
	}

	/** A pooled data source on the PostgreSQL test database, shared by the tests of one JVM. */
	public static DataSource postgresql() {
		return pools.computeIfAbsent("postgresql", (name) -> pool(POSTGRESQL, "SET TIME ZONE 'America/New_York'"));
	}

	/** A pooled data source on an in-memory H2 database in MySQL mode, shared by the tests of one JVM. */
	public static DataSource h2() {
		return pools.computeIfAbsent("h2", (name) -> pool(H2, "SET TIME ZONE '-03:00'"));
	}

	/** A pooled data source on any database, e.g. one in a container. */
	public static DataSource pool(Connection connection, @Nullable String initSql) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(connection.url());
		config.setUsername(connection.user());
		config.setPassword(connection.password());
		config.setMaximumPoolSize(12);
		if (initSql != null) {
			config.setConnectionInitSql(initSql);
		}
		return new HikariDataSource(config);
	}

	/**
	 * Create an idempotency table with a fresh name from the dialect's shipped DDL.
	 * @return the table's name
	 */
	public static TableName createClaimTable(DataSource dataSource, SqlDialect dialect) {
		TableName table = new TableName("idem_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE));
		new SchemaInitializer(dataSource, table, dialect).initialize();
		return table;
	}

	/** Drop a table if it exists. */
	public static void drop(DataSource dataSource, String table) {
		new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + new TableName(table).value());
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value != null && !value.isEmpty()) ? value : fallback;
	}

	/**
	 * How to reach a database.
	 *
	 * @param url the JDBC URL
	 * @param user the user
	 * @param password the password, may be empty
	 */
	public record Connection(String url, String user, String password) {
	}

}
