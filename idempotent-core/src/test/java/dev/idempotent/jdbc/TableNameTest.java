package dev.idempotent.jdbc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TableNameTest {

	@ParameterizedTest
	@ValueSource(strings = { "idempotent_claim", "_t", "ledger.idempotent_claim", "T1" })
	void acceptsPlainIdentifiers(String name) {
		assertThat(new TableName(name).value()).isEqualTo(name);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "1abc", "t; DROP TABLE t_ledger", "t--", "`t`", "\"t\"", "a.b.c", "t x", "t\u00e9" })
	void refusesAnythingElse(String name) {
		assertThatIllegalArgumentException().isThrownBy(() -> new TableName(name))
			.withMessageContaining("Invalid idempotency table name");
	}

	@org.junit.jupiter.api.Test
	void simpleNameDropsTheSchema() {
		assertThat(new TableName("ledger.claims").simpleName()).isEqualTo("claims");
		assertThat(new TableName("claims").simpleName()).isEqualTo("claims");
	}

}
