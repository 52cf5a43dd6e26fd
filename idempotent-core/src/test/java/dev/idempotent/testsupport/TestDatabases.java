package dev.idempotent.testsupport;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The databases the tests talk to: MariaDB on 127.0.0.1:3306 (root, no password, database {@code test}) and
 * H2 in memory. Override MariaDB with {@code IDEMPOTENT_MARIADB_URL}, {@code IDEMPOTENT_MARIADB_USER} and
 * {@code IDEMPOTENT_MARIADB_PASSWORD}. Idempotency tables are created from the shipped DDL.
 */
public final class TestDatabases {

	/** JDBC URL of the MariaDB test database. */
	public static final String MARIADB_URL = env("IDEMPOTENT_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/test");

	/** User of the MariaDB test database. */
	public static final String MARIADB_USER = env("IDEMPOTENT_MARIADB_USER", "root");

	/** Password of the MariaDB test database. */
	public static final String MARIADB_PASSWORD = env("IDEMPOTENT_MARIADB_PASSWORD", "");

	private static final ConcurrentHashMap<String, HikariDataSource> pools = new ConcurrentHashMap<>();

	private TestDatabases() {
	}

	/** A pooled data source on the MariaDB test database, shared by the tests of one JVM. */
	public static DataSource mariadb() {
		return pools.computeIfAbsent("mariadb", (name) -> pool(MARIADB_URL, MARIADB_USER, MARIADB_PASSWORD));
	}

	/** A pooled data source on an in-memory H2 database in MySQL mode, shared by the tests of one JVM. */
	public static DataSource h2() {
		return pools.computeIfAbsent("h2", (name) -> pool("jdbc:h2:mem:idempotent;MODE=MySQL;DB_CLOSE_DELAY=-1", "sa", ""));
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

	private static HikariDataSource pool(String url, String user, String password) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(user);
		config.setPassword(password);
		config.setMaximumPoolSize(12);
		config.setPoolName("test-" + url.substring(5, 10));
		return new HikariDataSource(config);
	}

	private static String env(String name, String fallback) {
		String value = System.getenv(name);
		return (value != null && !value.isEmpty()) ? value : fallback;
	}

}
