package dev.idempotent.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import org.jspecify.annotations.Nullable;

/**
 * What the user asked the kit to do, read from the command line and the environment.
 *
 * @param url the JDBC URL of the database to check, never {@code null}
 * @param user the user, may be empty
 * @param password the password, may be empty; read from {@code IDEMPOTENT_KIT_PASSWORD} when not given, so that it
 * does not show in the process list
 * @param tablePrefix the prefix of every table the kit creates, a valid identifier
 * @param checks which checks to run
 * @param dialect a dialect to use instead of the detected one, or {@code null} to detect it
 * @param nodeUrls the JDBC URLs of the cluster's other nodes that accept writes, for the cross-node checks; empty for
 * a single server
 */
public record KitOptions(String url, String user, String password, String tablePrefix, CheckSet checks,
		@Nullable SqlDialect dialect, List<String> nodeUrls) {

	/** The table prefix used when none is given. */
	public static final String DEFAULT_TABLE_PREFIX = "idemkit_";

	/** The environment variable the password is read from when {@code --password} is not given. */
	public static final String PASSWORD_VARIABLE = "IDEMPOTENT_KIT_PASSWORD";

	/** The command-line help. */
	public static final String USAGE = """
			Usage: java -jar idempotent-conformance.jar --url=JDBC_URL [options]

			  --url=JDBC_URL        the database to check (MySQL, MariaDB, PostgreSQL, H2 drivers are included;
			                        a MySQL- or PostgreSQL-compatible database through those drivers works too)
			  --user=NAME           the user (needs CREATE TABLE, DROP TABLE and DML on the kit's own tables)
			  --password=SECRET     the password; better: set IDEMPOTENT_KIT_PASSWORD
			  --table-prefix=NAME   prefix of the throwaway tables the kit creates (default idemkit_); the kit refuses
			                        to run if tables with this prefix exist that it did not create
			  --checks=all|quick    all checks (default) or a representative subset (about a third of the time)
			  --dialect=ID          mysql, mariadb, postgresql or h2, when detection names your database wrongly
			  --node-url=JDBC_URL   another node of the same cluster that accepts writes (Galera, Group
			                        Replication multi-primary, distributed SQL); repeat it for each node: adds the
			                        cross-node checks (same user and password)
			  --help                this text

			Exit status: 0 conformant, 1 not conformant, 2 refused or bad arguments.
			""";

	/** Which checks run. */
	public enum CheckSet {

		/** Every check. */
		ALL,

		/** A representative subset: hits, keys, concurrency, lock classification, isolation, retention, crash. */
		QUICK

	}

	/**
	 * Read options from command-line arguments.
	 * @param args the arguments, never {@code null}
	 * @param environment the environment, for the password
	 * @return the options
	 * @throws IllegalArgumentException if an argument is unknown or malformed, or the URL is missing
	 */
	public static KitOptions parse(String[] args, Map<String, String> environment) {
		String url = null;
		String user = "";
		String password = environment.getOrDefault(PASSWORD_VARIABLE, "");
		String prefix = DEFAULT_TABLE_PREFIX;
		CheckSet checks = CheckSet.ALL;
		SqlDialect dialect = null;
		List<String> nodeUrls = new ArrayList<>();
		List<String> unknown = new ArrayList<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			String name = (equals > 0) ? arg.substring(0, equals) : arg;
			String value = (equals > 0) ? arg.substring(equals + 1) : "";
			switch (name) {
				case "--url" -> url = value;
				case "--user" -> user = value;
				case "--password" -> password = value;
				case "--table-prefix" -> prefix = value;
				case "--checks" -> checks = CheckSet.valueOf(value.toUpperCase(Locale.ROOT));
				case "--dialect" -> dialect = SqlDialect.fromId(value);
				case "--node-url" -> nodeUrls.add(value);
				default -> unknown.add(arg);
			}
		}
		if (!unknown.isEmpty()) {
			throw new IllegalArgumentException("unknown arguments: " + String.join(" ", unknown));
		}
		if (url == null || !url.startsWith("jdbc:")) {
			throw new IllegalArgumentException("--url=jdbc:... is required");
		}
		if (prefix.length() > 20) {
			throw new IllegalArgumentException("--table-prefix must be at most 20 characters: derived names must fit "
					+ "the 63-character identifiers of PostgreSQL");
		}
		for (String nodeUrl : nodeUrls) {
			if (!nodeUrl.startsWith("jdbc:")) {
				throw new IllegalArgumentException("--node-url=jdbc:... expected, not " + nodeUrl);
			}
		}
		new TableName(prefix + "x");
		return new KitOptions(url, user, password, prefix, checks, dialect, List.copyOf(nodeUrls));
	}

}
