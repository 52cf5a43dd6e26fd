package dev.idempotent.sample;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code mysql} profile on MySQL 8 in a container, on an empty database: MySQL 8 accepts the sample's
 * schema and the idempotency table's DDL, and the demo reconciles. Runs where a Docker engine exists; skipped with
 * Testcontainers' reason elsewhere.
 */
@SpringBootTest(properties = { "ledger.events=400", "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}" })
@ActiveProfiles("mysql")
@EmbeddedKafka(partitions = 3)
@Testcontainers(disabledWithoutDocker = true)
@ExtendWith(OutputCaptureExtension.class)
class LedgerApplicationMySql8Test {

	@Container
	static final GenericContainer<?> mysql = new GenericContainer<>("mysql:8.4")
		.withEnv("MYSQL_ALLOW_EMPTY_PASSWORD", "yes")
		.withEnv("MYSQL_DATABASE", "test")
		.withExposedPorts(3306)
		// the image's entrypoint starts a temporary server first (port 0), then the real one
		.waitingFor(Wait.forLogMessage(".*ready for connections.*port: 3306.*", 1));

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		registry.add("spring.datasource.url", () -> "jdbc:mysql://" + mysql.getHost() + ":" + mysql.getMappedPort(3306)
				+ "/test?allowPublicKeyRetrieval=true&useSSL=false");
		registry.add("spring.datasource.username", () -> "root");
		registry.add("spring.datasource.password", () -> "");
	}

	@Test
	void theDemoReconcilesOnMySql8(CapturedOutput output) {
		Matcher line = Pattern.compile("RECONCILIATION events=400 deliveries=\\d+ hits=\\d+ ledger_rows=400"
				+ " double_credits=0 missing=0 events_out=400 events_out_missing=0 events_out_double=0").matcher(output.getOut());
		assertThat(line.find()).as("reconciliation line in:%n%s", output.getOut()).isTrue();
	}

}
