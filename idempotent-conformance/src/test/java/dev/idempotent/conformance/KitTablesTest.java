package dev.idempotent.conformance;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The guard of the kit's tables, in process on H2. */
class KitTablesTest {

	private final DataSource h2 = TestDatabases.h2();

	private final JdbcTemplate jdbc = new JdbcTemplate(this.h2);

	@Test
	void dropsOnlyTablesOfItsRunAndLeavesEarlierRunsTablesAlone() {
		String prefix = KitProcess.uniquePrefix();
		KitTables earlier = KitTables.open(this.h2, prefix);
		TableName leftover = earlier.createClaimTable(SqlDialect.H2);
		KitTables tables = KitTables.open(this.h2, prefix);
		TableName claims = tables.createClaimTable(SqlDialect.H2);
		this.jdbc.execute("CREATE TABLE " + claims + "_weak (id INT)");

		assertThat(tables.leftovers()).singleElement().asString().isEqualToIgnoringCase(leftover.value());
		assertThatThrownBy(() -> tables.drop(leftover.value())).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("drops only tables it created in this run");
		assertThatThrownBy(() -> tables.drop("orders")).isInstanceOf(IllegalStateException.class);

		assertThat(tables.dropAll()).containsExactlyInAnyOrder(claims.value(), claims.value() + "_weak");
		assertThat(KitTables.tablesStartingWith(this.h2, prefix)).map(String::toLowerCase)
			.containsExactlyInAnyOrder(leftover.value(), prefix + "registry");
		earlier.dropAll();
		assertThat(KitTables.tablesStartingWith(this.h2, prefix)).isEmpty();
	}

}
