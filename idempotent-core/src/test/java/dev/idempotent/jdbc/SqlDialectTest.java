package dev.idempotent.jdbc;

import java.lang.reflect.Proxy;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransactionRollbackException;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlDialectTest {

	@Test
	void aConflictIsAFailureForWhichTheDatabaseRolledTheWholeTransactionBack() {
		SQLException deadlock = new SQLTransactionRollbackException("Deadlock found", "40001", 1213);
		// mysql-connector-j's lock-wait timeout: SQLState 40001, but the transaction stays open
		SQLException lockWaitTimeout = new SQLTransactionRollbackException("Lock wait timeout exceeded", "40001", 1205);
		SQLException recordChanged = new SQLException("Record has changed since last read", "HY000", 1020);
		SQLException groupReplication = new SQLException("Plugin instructed the server to rollback", "40000", 3101);
		for (SqlDialect dialect : List.of(SqlDialect.MARIADB, SqlDialect.MYSQL)) {
			assertThat(dialect.isConflict(deadlock)).as(dialect + " deadlock").isTrue();
			assertThat(dialect.isConflict(recordChanged)).as(dialect + " 1020").isTrue();
			assertThat(dialect.isConflict(lockWaitTimeout)).as(dialect + " lock-wait timeout").isFalse();
			assertThat(dialect.isTransient(lockWaitTimeout)).as(dialect + " lock-wait timeout").isTrue();
		}
		assertThat(SqlDialect.MYSQL.isConflict(groupReplication)).isTrue();
		assertThat(SqlDialect.POSTGRESQL.isConflict(new SQLException("could not serialize access", "40001"))).isTrue();
		assertThat(SqlDialect.POSTGRESQL.isConflict(new SQLException("deadlock detected", "40P01"))).isTrue();
		assertThat(SqlDialect.POSTGRESQL.isConflict(new SQLException("lock not available", "55P03"))).isFalse();
		assertThat(SqlDialect.H2.isConflict(new SQLException("Deadlock detected", "40001", 40001))).isTrue();
		assertThat(SqlDialect.H2.isConflict(new SQLException("Timeout trying to lock table", "HYT00", 50200))).isFalse();
	}

	@Test
	void mysqlFamilyRecognisesDuplicatesByVendorCodeNotMessage() {
		SQLException duplicate = new SQLIntegrityConstraintViolationException("Doppelter Eintrag", "23000", 1062);
		SQLException notNull = new SQLIntegrityConstraintViolationException("Duplicate entry (not really)", "23000", 1048);
		assertThat(SqlDialect.MARIADB.isDuplicateKey(duplicate)).isTrue();
		assertThat(SqlDialect.MYSQL.isDuplicateKey(duplicate)).isTrue();
		assertThat(SqlDialect.MARIADB.isDuplicateKey(notNull)).isFalse();
	}

	@Test
	void h2RecognisesDuplicatesBySqlState() {
		assertThat(SqlDialect.H2.isDuplicateKey(new SQLException("x", "23505", 23505))).isTrue();
		assertThat(SqlDialect.H2.isDuplicateKey(new SQLException("x", "23502", 23502))).isFalse();
	}

	@Test
	void postgresqlNeverRaisesADuplicateAndRetriesSerializationFailures() {
		assertThat(SqlDialect.POSTGRESQL.insertSuffix()).isEqualTo(" ON CONFLICT (scope, idempotency_key) DO NOTHING");
		assertThat(SqlDialect.POSTGRESQL.isTransient(new SQLException("x", "40001"))).isTrue();
		assertThat(SqlDialect.POSTGRESQL.isTransient(new SQLException("x", "40P01"))).isTrue();
		assertThat(SqlDialect.POSTGRESQL.isTransient(new SQLException("x", "55P03"))).isTrue();
		assertThat(SqlDialect.POSTGRESQL.isTransient(new SQLException("x", "25P02"))).isFalse();
		assertThat(SqlDialect.MARIADB.insertSuffix()).isEmpty();
	}

	@Test
	void deadlocksAndLockWaitTimeoutsAreTransient() {
		assertThat(SqlDialect.MARIADB.isTransient(new SQLTransactionRollbackException("x", "40001", 1213))).isTrue();
		assertThat(SqlDialect.MARIADB.isTransient(new SQLException("x", "HY000", 1205))).isTrue();
		assertThat(SqlDialect.H2.isTransient(new SQLException("x", "HYT00", 50200))).isTrue();
		assertThat(SqlDialect.MARIADB.isTransient(new SQLException("x", "23000", 1062))).isFalse();
	}

	@Test
	void dialectsAreNamedByTheirDdlFile() {
		assertThat(SqlDialect.fromId("MariaDB")).isEqualTo(SqlDialect.MARIADB);
		assertThat(SqlDialect.MYSQL.schemaLocation()).isEqualTo("dev/idempotent/jdbc/schema/schema-mysql.sql");
		assertThat(SqlDialect.MYSQL.archiveSchemaLocation())
			.isEqualTo("dev/idempotent/jdbc/schema/schema-mysql-archive.sql");
		for (SqlDialect dialect : SqlDialect.values()) {
			assertThat(SqlDialectTest.class.getClassLoader().getResource(dialect.archiveSchemaLocation()))
				.as("archive DDL of %s in the jar", dialect)
				.isNotNull();
		}
		assertThatIllegalArgumentException().isThrownBy(() -> SqlDialect.fromId("oracle"))
			.withMessageContaining("supported: mysql, mariadb, postgresql, h2");
	}

	@Test
	void anUnsupportedDatabaseFailsNamingTheSupportedOnesAndTheOverride() {
		DatabaseMetaData oracle = (DatabaseMetaData) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DatabaseMetaData.class }, (proxy, method, args) -> switch (method.getName()) {
					case "getDatabaseProductName" -> "Oracle";
					case "getDatabaseProductVersion" -> "23ai";
					default -> throw new UnsupportedOperationException(method.getName());
				});
		assertThatThrownBy(() -> SqlDialect.detect(oracle)).isInstanceOf(SqlDialect.UnsupportedDatabaseException.class)
			.hasMessage("Unsupported database for the idempotency table: Oracle 23ai. Supported: mysql, mariadb,"
					+ " postgresql, h2. If the database is compatible with one of them, set the dialect explicitly"
					+ " (property idempotent.jdbc.dialect).");
	}

	@Test
	void mariadbIsToldFromMysqlEvenThroughTheMysqlDriver() throws SQLException {
		DatabaseMetaData mariadb = (DatabaseMetaData) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DatabaseMetaData.class }, (proxy, method, args) -> switch (method.getName()) {
					case "getDatabaseProductName" -> "MySQL";
					case "getDatabaseProductVersion" -> "10.11.19-MariaDB-0+deb12u1";
					default -> throw new UnsupportedOperationException(method.getName());
				});
		assertThat(SqlDialect.detect(mariadb)).isEqualTo(SqlDialect.MARIADB);
	}

	@Test
	void everyDialectShipsItsDdl() {
		for (SqlDialect dialect : SqlDialect.values()) {
			assertThat(getClass().getClassLoader().getResource(dialect.schemaLocation())).as(dialect.id()).isNotNull();
		}
	}

}
