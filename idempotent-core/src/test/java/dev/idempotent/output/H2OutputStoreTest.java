package dev.idempotent.output;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The output store contract on H2 (see {@link TestDatabases}). */
class H2OutputStoreTest extends AbstractOutputStoreContractTest {

	@Override
	protected DataSource dataSource() {
		return TestDatabases.h2();
	}

	@Test
	void aTableThatComparesKeysLooselyErrsOnTheSideOfTheDatabase() {
		new JdbcTemplate(this.dataSource)
			.execute("ALTER TABLE " + this.outputs + " ALTER COLUMN idempotency_key VARCHAR_IGNORECASE(128)");
		this.transactions.executeWithoutResult((status) -> this.store.store(claim("order-a"), 0, List.of(output("x"))));

		assertThat(this.store.keysWithOutputs(SCOPE, List.of("ORDER-A", "order-b")))
			.as("the table returned order-a for ORDER-A: every key of the statement is kept out of the fast path")
			.containsExactlyInAnyOrder("ORDER-A", "order-b");
		assertThat(this.store.keysWithOutputs(SCOPE, List.of("order-a", "order-b"))).containsExactly("order-a");
	}

}
