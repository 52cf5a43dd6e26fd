package dev.idempotent.conformance;

import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.testsupport.TestDatabases;
import org.jspecify.annotations.Nullable;

/**
 * The database the checks run against, handed from the kit to the check classes that the JUnit Platform creates.
 *
 * @param dataSource a pool on the database, each session in a time zone other than the JVM's
 * @param connection how to reach it, for the checks that open pools or processes of their own
 * @param dialect the dialect to use
 * @param tables the kit's tables of this run
 * @param nodes pools on the cluster's other nodes (each session in the same zone), empty for a single server
 */
public record KitTarget(DataSource dataSource, TestDatabases.Connection connection, SqlDialect dialect,
		KitTables tables, List<DataSource> nodes) {

	private static volatile @Nullable KitTarget current;

	/**
	 * The target of the running kit.
	 * @return the target
	 * @throws IllegalStateException if no kit run is in progress (a check class was started outside the kit)
	 */
	public static KitTarget current() {
		KitTarget target = current;
		if (target == null) {
			throw new IllegalStateException("no database under test: run the checks through ConformanceKit");
		}
		return target;
	}

	static void set(@Nullable KitTarget target) {
		current = target;
	}

	/** The session statement that puts a session in a time zone other than UTC and the JVM's (UTC+8). */
	public static String sessionTimeZoneSql(SqlDialect dialect) {
		return switch (Objects.requireNonNull(dialect)) {
			case MYSQL, MARIADB -> "SET time_zone = '+05:00'";
			case POSTGRESQL -> "SET TIME ZONE 'America/New_York'";
			case H2 -> "SET TIME ZONE '-03:00'";
		};
	}

	/** The session statement that makes a lock wait give up after about a second. */
	public static String lockTimeoutSql(SqlDialect dialect) {
		return switch (dialect) {
			case MYSQL, MARIADB -> "SET innodb_lock_wait_timeout = 1";
			case POSTGRESQL -> "SET lock_timeout = '1s'";
			case H2 -> "SET LOCK_TIMEOUT 1000";
		};
	}

}
