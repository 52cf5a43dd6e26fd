package dev.idempotent.jdbc;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The claim store contract on MariaDB at 127.0.0.1:3306 (see {@link TestDatabases}). */
class MariaDbClaimStoreTest extends AbstractClaimStoreContractTest {

	@Test
	void theStartupCheckReportsACollationThatMergesKeys() {
		TableName padded = new TableName(this.table.value() + "_pad");
		String ddl = new SchemaInitializer(this.dataSource, padded, SqlDialect.MARIADB).ddl()
			.replaceAll("(?m)^--.*$", "")
			.replace("utf8mb4_nopad_bin", "utf8mb4_bin")
			.replaceFirst("utf8mb4_bin", "utf8mb4_general_ci");
		try {
			executeDdl(ddl);
			assertThat(new SchemaValidator(this.dataSource, padded, SqlDialect.MARIADB, 128).problems()).containsExactly(
					"column scope uses collation utf8mb4_general_ci, which merges keys that differ in case, accents or"
							+ " trailing spaces; it must be binary and NO PAD (utf8mb4_nopad_bin); fix it with: ALTER TABLE "
							+ padded + " MODIFY scope varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL",
					"column idempotency_key uses collation utf8mb4_bin, which merges keys that differ in case, accents or"
							+ " trailing spaces; it must be binary and NO PAD (utf8mb4_nopad_bin); fix it with: ALTER TABLE "
							+ padded + " MODIFY idempotency_key varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"
							+ " NOT NULL");
		}
		finally {
			TestDatabases.drop(this.dataSource, padded.value());
		}
	}

	/**
	 * latin1 and utf8mb3 cannot hold every character of a key: under a non-strict sql_mode the server stores those it
	 * cannot hold as '?', so distinct keys merge, even with a NO PAD binary collation. The check refuses them and names
	 * the DDL that fixes each column; running that DDL makes the table pass.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "latin1", "utf8mb3" })
	void theStartupCheckRefusesKeyColumnsWhoseCharacterSetCannotHoldEveryKey(String charset) {
		TableName narrow = new TableName(this.table.value() + "_" + charset);
		String ddl = new SchemaInitializer(this.dataSource, narrow, SqlDialect.MARIADB).ddl()
			.replaceAll("(?m)^--.*$", "")
			.replace("CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin", "CHARACTER SET " + charset + " COLLATE "
					+ charset + "_nopad_bin");
		try {
			executeDdl(ddl);
			SchemaValidator validator = new SchemaValidator(this.dataSource, narrow, SqlDialect.MARIADB, 128);
			List<String> problems = validator.problems();

			assertThat(problems).hasSize(2);
			for (String column : List.of("scope", "idempotency_key")) {
				String fix = "ALTER TABLE " + narrow + " MODIFY " + column + " varchar(128) CHARACTER SET utf8mb4 COLLATE"
						+ " utf8mb4_nopad_bin NOT NULL";
				assertThat(problems).filteredOn((problem) -> problem.startsWith("column " + column + " "))
					.singleElement()
					.asString()
					.contains("uses character set " + charset + " (collation " + charset + "_nopad_bin)",
							"stores the characters it cannot hold as '?'", "must be utf8mb4", fix);
				this.jdbc.execute(fix);
			}
			assertThat(validator.problems()).isEmpty();
		}
		finally {
			TestDatabases.drop(this.dataSource, narrow.value());
		}
	}

	@Test
	void theStartupCheckRefusesAUniqueIndexOnAPrefixOfTheKey() {
		TableName prefixed = new TableName(this.table.value() + "_pfx");
		String ddl = new SchemaInitializer(this.dataSource, prefixed, SqlDialect.MARIADB).ddl()
			.replaceAll("(?m)^--.*$", "")
			.replace("(scope, idempotency_key)", "(scope, idempotency_key(8))");
		try {
			executeDdl(ddl);
			assertThat(new SchemaValidator(this.dataSource, prefixed, SqlDialect.MARIADB, 128).problems()).containsExactly(
					"no UNIQUE index covers exactly (scope, idempotency_key): duplicates would not be detected");
		}
		finally {
			TestDatabases.drop(this.dataSource, prefixed.value());
		}
	}

	/**
	 * MariaDB's batch claim is an {@code INSERT IGNORE}, which stores a value the column cannot hold truncated,
	 * with a warning, instead of failing: the batch must fail rather than claim a truncated key for the real one.
	 */
	@Test
	void aBatchKeyTheKeyColumnCannotHoldFailsTheBatchInsteadOfBeingStoredTruncated() {
		this.jdbc.execute("ALTER TABLE " + this.table + " MODIFY idempotency_key VARCHAR(8) CHARACTER SET utf8mb4"
				+ " COLLATE utf8mb4_nopad_bin NOT NULL");
		List<ClaimRequest> batch = List.of(request("short"), request("order-123456789"));

		assertThatThrownBy(() -> this.executor.executeBatch(batch, List::size))
			.isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class)
			.hasMessageContaining("stored a key of scope=ledger altered");
		assertThat(count(this.table.value())).as("the batch rolled back").isZero();
	}

	/** The contract's hits are recognised while the server reports errors in German. */
	@Test
	void theServerReportsErrorsInAnotherLanguage() {
		assertThatThrownBy(() -> this.jdbc.queryForList("SELECT * FROM no_such_table_here"))
			.rootCause()
			.hasMessageContaining("existiert nicht");
	}

	@Override
	protected DataSource dataSource() {
		return TestDatabases.mariadb();
	}

	@Override
	protected TestDatabases.Connection connection() {
		return TestDatabases.MARIADB;
	}

	@Override
	protected String lockTimeoutSql() {
		return "SET innodb_lock_wait_timeout = 1";
	}

	@Override
	protected SqlDialect expectedDialect() {
		return SqlDialect.MARIADB;
	}

	@Override
	protected void awaitLockWaits(JdbcTemplate jdbc, List<Thread> waiters) {
		awaitCount(jdbc, "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'", waiters.size());
	}

}
