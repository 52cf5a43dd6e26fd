package dev.idempotent.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds, at startup, a MariaDB Galera node ({@code wsrep_on = ON}) reached through mariadb-java-client with bulk
 * INSERTs on ({@code useBulkStmtsForInserts}, the driver's default in 3.x). MariaDB answers a bulk INSERT during which
 * the node aborted the transaction for a conflicting one of another node with success, every row counted, and the
 * statements after it run in a new transaction (see docs/semantics.md, "Transactions the database ended"). The claim
 * executor notices it in its own transactions and runs them again; the application's other transactions would lose
 * their writes unnoticed, and every hidden abort costs a claim transaction a second run. Thread-safe.
 *
 * @since 0.1.0
 */
public final class GaleraDriverCheck {

	private static final Logger logger = LoggerFactory.getLogger(GaleraDriverCheck.class);

	private final DataSource dataSource;

	private final SqlDialect dialect;

	/**
	 * Create the check of a data source.
	 * @param dataSource the business database
	 * @param dialect its dialect; only MariaDB is checked
	 */
	public GaleraDriverCheck(DataSource dataSource, SqlDialect dialect) {
		this.dataSource = dataSource;
		this.dialect = dialect;
	}

	/**
	 * Tell what is wrong, if anything.
	 * @return the warning to log, naming the URL settings that fix it, or {@code null} when the data source is not a
	 * Galera node reached through mariadb-java-client with bulk INSERTs on, or that cannot be told
	 */
	public @Nullable String problem() {
		if (this.dialect != SqlDialect.MARIADB) {
			return null;
		}
		try (Connection connection = this.dataSource.getConnection()) {
			if (!galera(connection)) {
				return null;
			}
			String bulk = bulkInserts(connection);
			if (bulk == null) {
				return null;
			}
			return "The idempotency DataSource reaches a MariaDB Galera node (wsrep_on=ON) through mariadb-java-client"
					+ " with bulk INSERTs on (" + bulk + "). When the node aborts a transaction for a conflicting one of"
					+ " another node while it executes a bulk INSERT, MariaDB answers the INSERT with success and the"
					+ " statements after it run in a new transaction: claim transactions notice it and run again, the"
					+ " application's other transactions lose their writes unnoticed. Add"
					+ " useBulkStmts=false&useBulkStmtsForInserts=false to the JDBC URL (docs/semantics.md, \"Transactions"
					+ " the database ended\")";
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Could not tell whether the idempotency DataSource is a Galera node with bulk INSERTs on", ex);
			return null;
		}
	}

	private static boolean galera(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT @@wsrep_on")) {
			return rs.next() && rs.getBoolean(1);
		}
	}

	/** The driver's bulk settings if it is mariadb-java-client and sends INSERTs in bulk, else {@code null}. */
	private static @Nullable String bulkInserts(Connection connection) throws SQLException {
		Class<?> driverConnection;
		try {
			driverConnection = Class.forName("org.mariadb.jdbc.Connection", false, GaleraDriverCheck.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
		if (!connection.isWrapperFor(driverConnection)) {
			return null;
		}
		try {
			Object context = driverConnection.getMethod("getContext").invoke(connection.unwrap(driverConnection));
			Method getConf = context.getClass().getMethod("getConf");
			getConf.setAccessible(true);
			Object configuration = getConf.invoke(context);
			boolean forInserts = (Boolean) configuration.getClass().getMethod("useBulkStmtsForInserts").invoke(configuration);
			boolean all = (Boolean) configuration.getClass().getMethod("useBulkStmts").invoke(configuration);
			return (forInserts || all) ? "useBulkStmtsForInserts=" + forInserts + ", useBulkStmts=" + all : null;
		}
		catch (ReflectiveOperationException | ClassCastException ex) {
			logger.debug("Could not read mariadb-java-client's bulk settings", ex);
			return null;
		}
	}

}
