package dev.idempotent.output;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SchemaValidator;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.retention.JdbcRetentionJob;
import dev.idempotent.retention.RetentionListener;
import dev.idempotent.retention.RetentionMode;
import dev.idempotent.retention.RetentionPolicy;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The output store contract, written once and run against every supported database by a small subclass: outputs
 * commit and roll back with the claim's transaction, load in the order they were sent with every byte and header,
 * keys compare exactly, the startup check finds the table, and retention removes outputs with their claim.
 */
abstract class AbstractOutputStoreContractTest {

	static final Instant NOW = Instant.parse("2026-03-01T00:00:00Z");

	static final String SCOPE = "outputs-group";

	DataSource dataSource;

	SqlDialect dialect;

	TableName table;

	TableName outputs;

	JdbcOutputStore store;

	TransactionTemplate transactions;

	/** The database under test. */
	protected abstract DataSource dataSource();

	@BeforeEach
	void createTables() {
		this.dataSource = dataSource();
		this.dialect = SqlDialect.detect(this.dataSource);
		this.table = TestDatabases.createClaimTable(this.dataSource, this.dialect);
		this.outputs = this.table.outputs();
		SchemaInitializer.outputs(this.dataSource, this.outputs, this.dialect).initialize();
		this.store = new JdbcOutputStore(this.dataSource, this.outputs, this.dialect, Clock.fixed(NOW, ZoneId.of("UTC")));
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
	}

	@AfterEach
	void dropTables() {
		TestDatabases.drop(this.dataSource, this.outputs.value());
		TestDatabases.drop(this.dataSource, this.table.value());
	}

	@Test
	void loadsWhatWasStoredInOrderWithEveryByteAndHeader() {
		StoredOutput first = new StoredOutput("ledger.credited", null, bytes("k1"), bytes("{\"amount\":1}"),
				List.of(new OutputHeader("idempotency-key", bytes("k1")), new OutputHeader("empty", null),
						new OutputHeader("idempotency-key", bytes("again"))));
		StoredOutput second = new StoredOutput("replies", 3, null, null, List.of());
		StoredOutput binary = new StoredOutput("binary", 0, new byte[] { 0, -1, 127 }, new byte[70_000], List.of());

		this.transactions.executeWithoutResult((status) -> this.store.store(claim("order-1"), 0,
				List.of(first, second, binary)));

		assertThat(this.store.load(SCOPE, "order-1")).containsExactly(first, second, binary);
		assertThat(this.store.load(SCOPE, "order-2")).isEmpty();
		assertThat(this.store.load("other-scope", "order-1")).isEmpty();
	}

	@Test
	void outputsRollBackWithTheClaimsTransaction() {
		assertThatThrownBy(() -> this.transactions.executeWithoutResult((status) -> {
			this.store.store(claim("rolled-back"), 0, List.of(output("x")));
			throw new IllegalStateException("the listener failed");
		})).hasMessage("the listener failed");

		assertThat(this.store.load(SCOPE, "rolled-back")).isEmpty();
	}

	@Test
	void keysCompareExactly() {
		this.transactions.executeWithoutResult((status) -> {
			this.store.store(claim("Order-A"), 0, List.of(output("upper")));
			this.store.store(claim("order-a"), 0, List.of(output("lower")));
			this.store.store(claim("order-a "), 0, List.of(output("padded")));
		});

		assertThat(this.store.load(SCOPE, "order-a")).containsExactly(output("lower"));
		assertThat(this.store.load(SCOPE, "Order-A")).containsExactly(output("upper"));
		assertThat(this.store.load(SCOPE, "order-a ")).containsExactly(output("padded"));
	}

	@Test
	void manyKeysAreLoadedAtOnceEachWithItsOwnOutputsInOrder() {
		this.transactions.executeWithoutResult((status) -> {
			this.store.store(claim("Order-A"), 0, List.of(output("upper")));
			this.store.store(claim("order-a"), 0, List.of(output("lower-1"), output("lower-2")));
			this.store.store(claim("order-a"), 2, List.of(output("lower-3")));
			this.store.store(claim("late"), 0, List.of(output("after the first statement")));
		});
		List<String> keys = new java.util.ArrayList<>(List.of("order-a", "order-a ", "order-a"));
		java.util.stream.IntStream.range(0, JdbcOutputStore.MAX_KEYS).forEach((i) -> keys.add("absent-" + i));
		keys.add("late");

		java.util.Map<String, List<StoredOutput>> loaded = this.store.loadAll(SCOPE, keys);

		assertThat(loaded).hasSize(JdbcOutputStore.MAX_KEYS + 3);
		assertThat(loaded.get("order-a")).containsExactly(output("lower-1"), output("lower-2"), output("lower-3"));
		assertThat(loaded.get("order-a ")).as("compared exactly: no outputs").isEmpty();
		assertThat(loaded.get("absent-7")).isEmpty();
		assertThat(loaded.get("late")).as("in the second statement").containsExactly(output("after the first statement"));
		assertThat(loaded).doesNotContainKey("Order-A");
		assertThat(this.store.loadAll("other-scope", List.of("order-a"))).containsEntry("order-a", List.of());
		assertThat(this.store.keysWithOutputs(SCOPE, keys)).as("exactly the keys asked for with outputs")
			.containsExactlyInAnyOrder("order-a", "late");
		assertThat(this.store.keysWithOutputs("other-scope", keys)).isEmpty();
	}

	@Test
	void aClaimsOutputsAreReadAPartAtATimeInOrder() {
		this.transactions.executeWithoutResult((status) -> this.store.store(claim("fan-out"), 0,
				List.of(output("a"), output("b"), output("c"), output("d"), output("e"))));

		assertThat(this.store.load(SCOPE, "fan-out", 0, 2)).containsExactly(output("a"), output("b"));
		assertThat(this.store.load(SCOPE, "fan-out", 2, 2)).containsExactly(output("c"), output("d"));
		assertThat(this.store.load(SCOPE, "fan-out", 4, 2)).containsExactly(output("e"));
		assertThat(this.store.load(SCOPE, "fan-out", 5, 2)).isEmpty();
		assertThat(this.store.load(SCOPE, "fan-out ", 0, 2)).as("compared exactly").isEmpty();
	}

	@Test
	void theSizesOfSeveralClaimsOutputsAreReadWithoutTheirBytes() {
		StoredOutput large = new StoredOutput("ledger.credited", null, bytes("k1"), new byte[70_000],
				List.of(new OutputHeader("idempotency-key", bytes("k1"))));
		StoredOutput small = new StoredOutput("ledger.credited", 0, null, bytes("v"), List.of());
		this.transactions.executeWithoutResult((status) -> {
			this.store.store(claim("large"), 0, List.of(large, small));
			this.store.store(claim("small"), 0, List.of(small));
		});

		java.util.Map<String, Long> sizes = this.store.sizes(SCOPE, List.of("large", "small", "none", "small"));

		assertThat(sizes).containsOnlyKeys("large", "small");
		assertThat(sizes.get("large")).as("keys, values and stored headers").isBetween(70_003L, 70_100L);
		assertThat(sizes.get("small")).isBetween(1L, 10L);
		assertThat(this.store.sizes("other-scope", List.of("large"))).isEmpty();
	}

	@Test
	void laterOutputsOfAClaimContinueItsSequence() {
		this.transactions.executeWithoutResult((status) -> {
			this.store.store(claim("leased"), 0, List.of(output("a"), output("b")));
			this.store.store(claim("leased"), 2, List.of(output("c")));
		});

		assertThat(this.store.load(SCOPE, "leased")).containsExactly(output("a"), output("b"), output("c"));
	}

	@Test
	void theStartupCheckFindsTheShippedOutputTableAndReportsAMissingOne() {
		SchemaValidator validator = new SchemaValidator(this.dataSource, this.table, this.dialect, 128);

		assertThat(validator.withOutputs(this.outputs).problems()).isEmpty();
		TableName missing = new TableName(this.table.value() + "_none");
		assertThat(validator.withOutputs(missing).problems()).singleElement()
			.asString()
			.startsWith("output table " + missing + " does not exist")
			.contains("sql/schema-" + this.dialect.id() + "-output.sql");
	}

	@Test
	void retentionRemovesTheOutputsOfTheClaimsItRemovesOnly() {
		Duration period = Duration.ofDays(7);
		claimWithOutputs("old", NOW.minus(period).minusSeconds(60));
		claimWithOutputs("recent", NOW.minus(period).plusSeconds(60));

		int removed = new JdbcRetentionJob(this.dataSource, this.table, null, this.dialect,
				new RetentionPolicy(period, RetentionMode.DELETE, false, 10), Clock.fixed(NOW, ZoneId.of("UTC")),
				RetentionListener.NO_OP)
			.withOutputs(this.outputs)
			.run();

		assertThat(removed).isOne();
		assertThat(this.store.load(SCOPE, "old")).isEmpty();
		assertThat(this.store.load(SCOPE, "recent")).containsExactly(output("recent-0"), output("recent-1"));
	}

	private void claimWithOutputs(String key, Instant at) {
		JdbcClaimStore claims = new JdbcClaimStore(this.dataSource, this.table, this.dialect,
				Clock.fixed(at, ZoneId.of("UTC")));
		this.transactions.executeWithoutResult((status) -> {
			claims.claim(claim(key));
			this.store.store(claim(key), 0, List.of(output(key + "-0"), output(key + "-1")));
		});
	}

	static ClaimRequest claim(String key) {
		return new ClaimRequest(SCOPE, key, new DeliverySource("orders", 0, 1), null);
	}

	static StoredOutput output(String value) {
		return new StoredOutput("out", null, null, bytes(value), List.of(new OutputHeader("h", bytes(value))));
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
