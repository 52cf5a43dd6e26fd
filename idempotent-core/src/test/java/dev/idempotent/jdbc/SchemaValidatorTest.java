package dev.idempotent.jdbc;

import dev.idempotent.jdbc.SchemaValidator.TextColumn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which key and scope columns the startup check accepts on MySQL and MariaDB, by the character set and collation
 * information_schema reports (the databases' own tests create such tables: {@link MariaDbClaimStoreTest} here,
 * {@link MySqlClaimStoreTest} where Docker runs).
 */
class SchemaValidatorTest {

	private static final TableName TABLE = new TableName("idempotent_claim");

	@ParameterizedTest(name = "{0}: {1} / {2}")
	@CsvSource({ "MARIADB, utf8mb4, utf8mb4_nopad_bin", "MYSQL, utf8mb4, utf8mb4_0900_bin", "MYSQL, , ",
			"MARIADB, binary, binary" })
	void acceptsUtf8mb4WithABinaryNoPadCollationAndBinaryStrings(SqlDialect dialect, String charset, String collation) {
		assertThat(SchemaValidator.keyColumnProblem(dialect, TABLE, column(charset, collation))).isNull();
	}

	@ParameterizedTest(name = "{0}: {1} / {2}")
	@CsvSource({ "MARIADB, latin1, latin1_nopad_bin, utf8mb4_nopad_bin", "MARIADB, utf8mb3, utf8mb3_nopad_bin, utf8mb4_nopad_bin",
			"MARIADB, utf8mb3, utf8mb3_bin, utf8mb4_nopad_bin", "MYSQL, latin1, latin1_bin, utf8mb4_0900_bin",
			"MYSQL, utf8mb3, utf8mb3_bin, utf8mb4_0900_bin", "MARIADB, utf16, utf16_nopad_bin, utf8mb4_nopad_bin" })
	void refusesOtherCharacterSetsAndSaysWhatToDo(SqlDialect dialect, String charset, String collation, String expected) {
		assertThat(SchemaValidator.keyColumnProblem(dialect, TABLE, column(charset, collation))).isEqualTo(
				"column idempotency_key uses character set " + charset + " (collation " + collation + "), which cannot"
						+ " hold every character of a key: under a non-strict sql_mode the server stores the characters it"
						+ " cannot hold as '?', so distinct keys merge and real records are skipped as hits; it must be"
						+ " utf8mb4, with a binary NO PAD collation (" + expected + "); fix it with: ALTER TABLE"
						+ " idempotent_claim MODIFY idempotency_key varchar(128) CHARACTER SET utf8mb4 COLLATE " + expected
						+ " NOT NULL");
	}

	/** utf8mb4_bin is PAD SPACE on MySQL 8 and MariaDB: 'a' and 'a ' would be one key. */
	@ParameterizedTest(name = "{0}: {1}")
	@CsvSource({ "MYSQL, utf8mb4_bin, utf8mb4_0900_bin", "MARIADB, utf8mb4_bin, utf8mb4_nopad_bin",
			"MYSQL, utf8mb4_0900_ai_ci, utf8mb4_0900_bin", "MARIADB, utf8mb4_nopad_general_ci, utf8mb4_nopad_bin" })
	void refusesCollationsThatMergeKeys(SqlDialect dialect, String collation, String expected) {
		assertThat(SchemaValidator.keyColumnProblem(dialect, TABLE, column("utf8mb4", collation))).startsWith(
				"column idempotency_key uses collation " + collation + ", which merges keys that differ in case, accents"
						+ " or trailing spaces; it must be binary and NO PAD (" + expected + "); fix it with: ALTER TABLE"
						+ " idempotent_claim MODIFY idempotency_key varchar(128) CHARACTER SET utf8mb4 COLLATE " + expected);
	}

	/**
	 * Fixed-length columns pad: CHAR drops trailing spaces, so 'a' and 'a ' are one key, and BINARY pads with 0x00, so
	 * the read of a hit's row by its key finds nothing (every duplicate fails as another constraint's violation).
	 */
	@ParameterizedTest(name = "{0}: {1} {2} / {3}")
	@CsvSource({ "MARIADB, char(128), utf8mb4, utf8mb4_nopad_bin, varchar(128)", "MYSQL, char(128), utf8mb4, utf8mb4_0900_bin, varchar(128)",
			"MARIADB, binary(128), , , varbinary(128)", "MYSQL, binary(64), binary, binary, varbinary(64)" })
	void refusesFixedLengthColumnsThatPadKeys(SqlDialect dialect, String type, String charset, String collation,
			String expected) {
		TextColumn fixed = new TextColumn("idempotency_key", charset, collation, type, false);
		assertThat(SchemaValidator.keyColumnProblem(dialect, TABLE, fixed)).startsWith("column idempotency_key is "
				+ type + ", a fixed-length type that pads its values").contains("it must be " + expected);
	}

	@Test
	void theFixKeepsANullableColumnNullable() {
		TextColumn nullable = new TextColumn("scope", "latin1", "latin1_bin", "varchar(64)", true);
		assertThat(SchemaValidator.keyColumnProblem(SqlDialect.MARIADB, TABLE, nullable))
			.endsWith("ALTER TABLE idempotent_claim MODIFY scope varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL");
	}

	private static TextColumn column(String charset, String collation) {
		return new TextColumn("idempotency_key", charset, collation, "varchar(128)", false);
	}

}
