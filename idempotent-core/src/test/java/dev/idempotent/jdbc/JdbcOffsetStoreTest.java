package dev.idempotent.jdbc;

import java.time.Clock;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

import javax.sql.DataSource;

import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The table of consumed offsets, created from the shipped DDL, on MariaDB, PostgreSQL and H2. */
class JdbcOffsetStoreTest {

	static Stream<Arguments> databases() {
		return Stream.of(Arguments.of(SqlDialect.MARIADB), Arguments.of(SqlDialect.POSTGRESQL), Arguments.of(SqlDialect.H2));
	}

	private static DataSource dataSource(SqlDialect dialect) {
		return switch (dialect) {
			case MARIADB -> TestDatabases.mariadb();
			case POSTGRESQL -> TestDatabases.postgresql();
			default -> TestDatabases.h2();
		};
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void storesTheFirstOffsetOnceAndMovesItOnlyFromTheExpectedOne(SqlDialect dialect) {
		DataSource dataSource = dataSource(dialect);
		TableName table = createTable(dataSource, dialect);
		try {
			JdbcOffsetStore store = new JdbcOffsetStore(dataSource, table, dialect, Clock.systemUTC());
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
			assertThat(store.find("payments", "orders", 0)).isEmpty();

			assertThat(advance(transaction, store, "payments", "orders", 0, null, 10)).isTrue();
			assertThat(advance(transaction, store, "payments", "orders", 0, null, 12)).isFalse();
			assertThat(store.find("payments", "orders", 0)).isEqualTo(OptionalLong.of(10));

			assertThat(advance(transaction, store, "payments", "orders", 0, 9L, 12)).isFalse();
			assertThat(advance(transaction, store, "payments", "orders", 0, 10L, 12)).isTrue();
			assertThat(advance(transaction, store, "payments", "orders", 0, 12L, 12)).isTrue();
			assertThat(store.find("payments", "orders", 0)).isEqualTo(OptionalLong.of(12));

			// a rolled-back move leaves the stored offset as it was
			transaction.executeWithoutResult((status) -> {
				assertThat(store.advance("payments", "orders", 0, 12L, 20)).isTrue();
				status.setRollbackOnly();
			});
			assertThat(store.find("payments", "orders", 0)).isEqualTo(OptionalLong.of(12));

			// groups, topics and partitions are apart, and names compare exactly
			assertThat(advance(transaction, store, "Payments", "orders", 0, null, 3)).isTrue();
			assertThat(advance(transaction, store, "payments", "orders", 1, null, 4)).isTrue();
			assertThat(advance(transaction, store, "payments", "orders ", 0, null, 5)).isTrue();
			assertThat(List.of(store.find("Payments", "orders", 0), store.find("payments", "orders", 1),
					store.find("payments", "orders ", 0), store.find("payments", "orders", 0)))
				.containsExactly(OptionalLong.of(3), OptionalLong.of(4), OptionalLong.of(5), OptionalLong.of(12));
		}
		finally {
			TestDatabases.drop(dataSource, table.value());
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("databases")
	void refusesToMoveAnOffsetOutsideATransaction(SqlDialect dialect) {
		DataSource dataSource = dataSource(dialect);
		TableName table = createTable(dataSource, dialect);
		try {
			JdbcOffsetStore store = new JdbcOffsetStore(dataSource, table, dialect, Clock.systemUTC());
			assertThatIllegalStateException().isThrownBy(() -> store.advance("payments", "orders", 0, null, 1));
		}
		finally {
			TestDatabases.drop(dataSource, table.value());
		}
	}

	private static boolean advance(TransactionTemplate transaction, JdbcOffsetStore store, String group, String topic,
			int partition, Long expected, long next) {
		return Boolean.TRUE.equals(transaction.execute((status) -> store.advance(group, topic, partition, expected, next)));
	}

	private static TableName createTable(DataSource dataSource, SqlDialect dialect) {
		TableName table = new TableName(
				"offs_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE));
		SchemaInitializer.offsets(dataSource, table, dialect).initialize();
		assertThat(new SchemaValidator(dataSource, TestDatabases.createClaimTable(dataSource, dialect), dialect, 128)
			.withOffsets(table)
			.problems()).isEmpty();
		return table;
	}

}
