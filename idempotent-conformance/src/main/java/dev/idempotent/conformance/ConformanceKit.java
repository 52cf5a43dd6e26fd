package dev.idempotent.conformance;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.testsupport.TestDatabases;
import org.jspecify.annotations.Nullable;

/**
 * The conformance kit's entry point: {@code java -jar idempotent-conformance.jar --url=JDBC_URL [options]} (see
 * {@link KitOptions#USAGE}). It checks the database, refuses it if its tables could be damaged, runs the checks on
 * throwaway tables of its own, drops them, prints the report and exits with 0 (conformant), 1 (not conformant) or 2
 * (refused, unsupported or bad arguments).
 * <p>The JVM's default time zone is set to Asia/Shanghai (UTC+8) and each session's to another zone, so that a time
 * written in a local zone shows as a failure.
 */
public final class ConformanceKit {

	/** Exit status: every check that ran passed. */
	public static final int CONFORMANT = 0;

	/** Exit status: a check failed. */
	public static final int NOT_CONFORMANT = 1;

	/** Exit status: the kit did not run (refused database, unsupported database, bad arguments). */
	public static final int REFUSED = 2;

	private ConformanceKit() {
	}

	/**
	 * Run the kit and exit.
	 * @param args the command line, see {@link KitOptions#USAGE}
	 */
	public static void main(String[] args) {
		System.exit(run(args, System.getenv(), System.out));
	}

	/**
	 * Run the kit.
	 * @param args the command line
	 * @param environment the environment, for the password
	 * @param out where the report goes
	 * @return the exit status
	 */
	static int run(String[] args, Map<String, String> environment, PrintStream out) {
		if (java.util.Arrays.asList(args).contains("--help")) {
			out.print(KitOptions.USAGE);
			return CONFORMANT;
		}
		KitOptions options;
		try {
			options = KitOptions.parse(args, environment);
		}
		catch (IllegalArgumentException ex) {
			out.println("idempotent-conformance: " + ex.getMessage());
			out.println();
			out.print(KitOptions.USAGE);
			return REFUSED;
		}
		TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
		TestDatabases.Connection connection = new TestDatabases.Connection(options.url(), options.user(),
				options.password());
		List<String> header = new ArrayList<>();
		SqlDialect dialect;
		try {
			dialect = describe(connection, options, header);
		}
		catch (SQLException ex) {
			out.println("CANNOT CONNECT: " + Report.describe(ex));
			return REFUSED;
		}
		catch (SqlDialect.UnsupportedDatabaseException ex) {
			out.println("REFUSED: " + Report.describe(ex));
			out.println("(an unsupported database that speaks the MySQL or PostgreSQL protocol can be checked with"
					+ " --dialect=mysql or --dialect=postgresql)");
			return REFUSED;
		}
		String sessionSql = sessionTimeZoneSql(connection, dialect, header);
		try (HikariDataSource pool = (HikariDataSource) TestDatabases.pool(connection, sessionSql)) {
			KitTables tables;
			try {
				tables = KitTables.open(pool, options.tablePrefix());
			}
			catch (RefusedDatabaseException ex) {
				out.println("REFUSED: " + ex.getMessage());
				out.println("Nothing was written to the database.");
				return REFUSED;
			}
			header.add("tables: " + options.tablePrefix() + tables.runId() + "_* (registry " + tables.registry()
					+ "), dropped at the end");
			header.add("checks: " + options.checks().name().toLowerCase(java.util.Locale.ROOT));
			List<CheckResult> results;
			List<String> footer = new ArrayList<>();
			List<HikariDataSource> nodes = new ArrayList<>();
			for (String nodeUrl : options.nodeUrls()) {
				nodes.add((HikariDataSource) TestDatabases.pool(
						new TestDatabases.Connection(nodeUrl, options.user(), options.password()), sessionSql));
			}
			if (!nodes.isEmpty()) {
				header.add("other nodes: " + String.join(", ", options.nodeUrls()) + " (cross-node checks)");
			}
			KitTarget.set(new KitTarget(pool, connection, dialect, tables, List.copyOf(nodes)));
			try {
				results = CheckRunner.run(options.checks(), !nodes.isEmpty());
			}
			finally {
				KitTarget.set(null);
				nodes.forEach(HikariDataSource::close);
				List<String> dropped = tables.dropAll();
				footer.add("cleanup: the checks created " + tables.created().size() + " tables (and tables derived from"
						+ " their names) and dropped them; dropped at the end: " + dropped.size() + "; left of this run: "
						+ KitTables.tablesStartingWith(pool, options.tablePrefix() + tables.runId()).size()
						+ "; registry " + tables.registry() + (KitTables.tablesStartingWith(pool, tables.registry())
							.isEmpty() ? " dropped" : " kept (rows of other runs)"));
				if (!tables.leftovers().isEmpty()) {
					footer.add("left by earlier, interrupted kit runs (not touched): " + tables.leftovers());
				}
			}
			Report report = new Report(header, results, footer);
			report.print(out);
			return report.conformant() ? CONFORMANT : NOT_CONFORMANT;
		}
	}

	/**
	 * The statement that puts each session in a zone other than UTC and the JVM's, or {@code null} when the database
	 * refuses it (a forced dialect of another family): the sessions then keep the server's zone, as the header says.
	 */
	private static @Nullable String sessionTimeZoneSql(TestDatabases.Connection connection, SqlDialect dialect,
			List<String> header) {
		String sql = KitTarget.sessionTimeZoneSql(dialect);
		try (Connection jdbc = DriverManager.getConnection(connection.url(), connection.user(), connection.password());
				java.sql.Statement statement = jdbc.createStatement()) {
			statement.execute(sql);
			header.add("time zones: JVM Asia/Shanghai (UTC+8), each session " + sql);
			return sql;
		}
		catch (SQLException ex) {
			header.add("time zones: JVM Asia/Shanghai (UTC+8), sessions the server's (" + sql + " failed: "
					+ Report.describe(ex) + ")");
			return null;
		}
	}

	private static SqlDialect describe(TestDatabases.Connection connection, KitOptions options, List<String> header)
			throws SQLException {
		try (Connection jdbc = DriverManager.getConnection(connection.url(), connection.user(), connection.password())) {
			DatabaseMetaData metaData = jdbc.getMetaData();
			SqlDialect detected = null;
			try {
				detected = SqlDialect.detect(metaData);
			}
			catch (SqlDialect.UnsupportedDatabaseException ex) {
				if (options.dialect() == null) {
					throw ex;
				}
			}
			SqlDialect dialect = (options.dialect() != null) ? options.dialect() : detected;
			header.add("database: " + metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion());
			header.add("driver: " + metaData.getDriverName() + " " + metaData.getDriverVersion() + ", url "
					+ connection.url() + ", user " + connection.user());
			header.add("dialect: " + dialect.id() + ((options.dialect() != null) ? " (given; detected: "
					+ ((detected != null) ? detected.id() : "none") + ")" : " (detected)"));
			return dialect;
		}
	}

}
