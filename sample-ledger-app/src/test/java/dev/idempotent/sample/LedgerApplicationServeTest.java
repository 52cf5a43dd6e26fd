package dev.idempotent.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample in its {@code serve} profile: after the demo it keeps running, serves the health, idempotency and
 * prometheus endpoints over HTTP, and keeps consuming what is published later.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "ledger.events=200", "ledger.resend-ratio=0.1" })
@ActiveProfiles("serve")
class LedgerApplicationServeTest {

	private static final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@Autowired
	DemoStream stream;

	@Autowired
	LedgerProperties properties;

	@Test
	void servesTheEndpointsAndKeepsConsuming() throws Exception {
		assertThat(this.properties.isKeepRunning()).isTrue();

		DocumentContext health = JsonPath.parse(get("/actuator/health", 200));
		assertThat(health.read("$.status", String.class)).isEqualTo("UP");
		assertThat(health.read("$.components.idempotency.status", String.class)).isEqualTo("UP");
		assertThat(health.read("$.components.idempotency.details.table", String.class)).isEqualTo("idempotent_claim");

		DocumentContext idempotency = JsonPath.parse(get("/actuator/idempotency", 200));
		assertThat(idempotency.read("$.scopes.ledger.claimed", Long.class)).isEqualTo(200);
		assertThat(idempotency.read("$.scopes.ledger.hit", Long.class)).as("re-sends and the replay").isGreaterThan(200);

		assertThat(get("/actuator/prometheus", 200))
			.containsPattern("idempotent_claims_total\\{[^}]*outcome=\"claimed\"[^}]*scope=\"ledger\"[^}]*} 200.0");

		this.stream.publish(this.properties.getTopic(), "later", 5, 0);
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(JsonPath.parse(get("/actuator/idempotency", 200))
				.read("$.scopes.ledger.claimed", Long.class)).isEqualTo(205));
	}

	private String get(String path, int expectedStatus) throws IOException, InterruptedException {
		HttpResponse<String> response = http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(expectedStatus);
		return response.body();
	}

}
