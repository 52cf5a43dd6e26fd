package dev.idempotent.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The {@code idempotency} endpoint and health contributor over HTTP, in a web application on a random port, with
 * rows written by the library's own template and failure recorder into a table of the test's own, and a small real
 * audit. Subclasses choose the database.
 */
@SpringBootTest(classes = AbstractIdempotencyEndpointIT.EndpointApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=servlet",
				"management.endpoints.web.exposure.include=health,idempotency",
				"management.endpoint.health.show-details=always", "idempotent.jdbc.initialize-schema=always" })
abstract class AbstractIdempotencyEndpointIT {

	private static final String TABLE = "idem_ep_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);

	private static final String LEDGER = "ledger_ep_" + TABLE.substring(8);

	private static final HttpClient http = HttpClient.newHttpClient();

	private static DataSource createdIn;

	@LocalServerPort
	int port;

	@Autowired
	IdempotentTemplate template;

	@Autowired
	FailureRecorder failures;

	@Autowired
	MeterRegistry meters;

	@Autowired
	DataSource dataSource;

	private String scope;

	/** The dialect the endpoint must report. */
	protected abstract String expectedDialect();

	@DynamicPropertySource
	static void table(DynamicPropertyRegistry registry) {
		registry.add("idempotent.table-name", () -> TABLE);
		registry.add("test.ledger-table", () -> LEDGER);
	}

	@BeforeEach
	void freshScope() {
		createdIn = this.dataSource;
		this.scope = "scope-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
	}

	@AfterAll
	static void dropTables() {
		if (createdIn != null) {
			TestDatabases.drop(createdIn, TABLE);
			TestDatabases.drop(createdIn, LEDGER);
		}
	}

	@Test
	void summarisesClaimsPerScopeWithTheirHitRatio() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		for (String key : List.of("ORDER-000001", "ORDER-000002", "ORDER-000001")) {
			this.template.execute(this.scope, key, runs::incrementAndGet);
		}
		assertThat(runs).hasValue(2);

		DocumentContext summary = getJson("/actuator/idempotency", 200);
		String scope = "$.scopes['" + this.scope + "']";
		assertThat(summary.read("$.table", String.class)).isEqualTo(TABLE);
		assertThat(summary.read("$.dialect", String.class)).isEqualTo(expectedDialect());
		assertThat(summary.read("$.keysMasked", Boolean.class)).isTrue();
		assertThat(summary.read(scope + ".claimed", Long.class)).isEqualTo(2);
		assertThat(summary.read(scope + ".hit", Long.class)).isEqualTo(1);
		assertThat(summary.read(scope + ".reclaimed", Long.class)).isZero();
		assertThat(summary.read(scope + ".hitRatio", Double.class)).isCloseTo(1.0 / 3, offset(1e-9));
		assertThat(summary.read(scope + ".recentHitRatio", Double.class)).as("the sliding-window gauge")
			.isCloseTo(1.0 / 3, offset(1e-9));
		assertThat(summary.read("$.audits", Map.class)).containsOnlyKeys(LedgerDuplicatesAudit.NAME);
	}

	@Test
	void pagesFailedRowsWithKeysMaskedAlsoInTheirErrors() throws Exception {
		for (int i = 1; i <= 3; i++) {
			String key = "CUSTOMER-+4915112345" + i;
			this.failures.record(new ClaimRequest(this.scope, key, new DeliverySource("payments", 0, i)), 4,
					new IllegalStateException("payment of " + key + " refused"));
		}
		DocumentContext first = getJson("/actuator/idempotency/failed?scope=" + this.scope + "&size=2", 200);
		assertThat(first.read("$.page", Integer.class)).isZero();
		assertThat(first.read("$.hasMore", Boolean.class)).isTrue();
		List<String> keys = first.read("$.rows[*].key");
		assertThat(keys).containsExactly(KeyMasker.MASKED.mask("CUSTOMER-+49151123453"),
				KeyMasker.MASKED.mask("CUSTOMER-+49151123452"));
		assertThat(first.jsonString()).doesNotContain("+4915112345");
		assertThat(first.read("$.rows[0].status", String.class)).isEqualTo("FAILED");
		assertThat(first.read("$.rows[0].attempts", Integer.class)).isEqualTo(4);
		assertThat(first.read("$.rows[0].lastError", String.class)).as("the error's text may quote the key")
			.startsWith("java.lang.IllegalStateException: (message hidden")
			.doesNotContain("49151123453");

		DocumentContext second = getJson("/actuator/idempotency/failed?scope=" + this.scope + "&size=2&page=1", 200);
		assertThat(second.read("$.hasMore", Boolean.class)).isFalse();
		assertThat(second.read("$.rows[*].key", List.class)).containsExactly(KeyMasker.MASKED.mask("CUSTOMER-+49151123451"));

		assertThat(get("/actuator/idempotency/failed?size=" + (IdempotencyEndpoint.MAX_PAGE_SIZE + 1)).statusCode())
			.isEqualTo(400);
		assertThat(get("/actuator/idempotency/nothing-here").statusCode()).isEqualTo(404);
	}

	@Test
	void showsOneKeysRowAndAnswers404ForAnUnknownKey() throws Exception {
		ClaimOutcome<Integer> outcome = this.template.execute(this.scope, "ORDER-424242", () -> 1);
		assertThat(outcome).isInstanceOf(ClaimOutcome.Processed.class);

		DocumentContext row = getJson("/actuator/idempotency/" + this.scope + "/ORDER-424242", 200);
		assertThat(row.read("$.scope", String.class)).isEqualTo(this.scope);
		assertThat(row.read("$.key", String.class)).isEqualTo(KeyMasker.MASKED.mask("ORDER-424242"));
		assertThat(row.read("$.status", String.class)).isEqualTo("SUCCEEDED");
		assertThat(row.read("$.attempts", Integer.class)).isEqualTo(1);
		assertThat(row.read("$.createdAt", String.class)).endsWith("Z");
		assertThat(get("/actuator/idempotency/" + this.scope + "/order-424242").statusCode()).isEqualTo(404);
	}

	@Test
	void runsAnAuditOnDemand() throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		jdbc.update("DELETE FROM " + LEDGER);
		jdbc.update("INSERT INTO " + LEDGER + " (order_id) VALUES ('ORDER-000777'), ('ORDER-000777'), ('ORDER-000778')");

		HttpResponse<String> response = post("/actuator/idempotency", "{\"audit\": \"" + LedgerDuplicatesAudit.NAME + "\"}");
		assertThat(response.statusCode()).isEqualTo(200);
		DocumentContext result = JsonPath.parse(response.body());
		assertThat(result.read("$.duplicatedKeys", Long.class)).isEqualTo(1);
		assertThat(result.read("$.sampleKeys", List.class)).containsExactly(KeyMasker.MASKED.mask("ORDER-000777"));
		assertThat(getJson("/actuator/idempotency", 200)
			.read("$.audits['" + LedgerDuplicatesAudit.NAME + "'].duplicatedKeys", Long.class)).isEqualTo(1);

		assertThat(post("/actuator/idempotency", "{\"audit\": \"no-such-audit\"}").statusCode()).isEqualTo(400);
	}

	@Test
	void theHealthContributorIsUp() throws Exception {
		DocumentContext health = getJson("/actuator/health/idempotency", 200);
		assertThat(health.read("$.status", String.class)).isEqualTo("UP");
		assertThat(health.read("$.details.table", String.class)).isEqualTo(TABLE);
	}

	private DocumentContext getJson(String path, int expectedStatus) throws IOException, InterruptedException {
		HttpResponse<String> response = get(path);
		assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(expectedStatus);
		return JsonPath.parse(response.body());
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
		return http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	/** Auto-configuration on the test's database, with a ledger table and its audit. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class EndpointApplication {

		@Bean
		LedgerDuplicatesAudit ledgerDuplicatesAudit(JdbcTemplate jdbc, Environment environment) {
			String ledger = environment.getRequiredProperty("test.ledger-table");
			jdbc.execute("CREATE TABLE " + ledger + " (order_id VARCHAR(64) NOT NULL)");
			return new LedgerDuplicatesAudit(jdbc, ledger);
		}

	}

}
