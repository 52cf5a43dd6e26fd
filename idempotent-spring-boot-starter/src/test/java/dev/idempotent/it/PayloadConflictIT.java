package dev.idempotent.it;

import java.util.UUID;

import ch.qos.logback.classic.Level;
import dev.idempotent.audit.Audits;
import dev.idempotent.claim.ConflictLog;
import dev.idempotent.claim.PayloadFingerprint;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.metrics.HitRatioMeters;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.kafkaBootstrapServers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Forensics on a real broker and MariaDB, with payload fingerprints on and the idempotency table of its own: a
 * re-send of a key with different content is skipped as a hit but reported as a conflict; the hit ratio of the
 * listener's scope and a declared audit over the test ledger show in the meters.
 */
@SpringBootTest(classes = { ItApplication.class, PayloadConflictIT.Listeners.class },
		properties = { "idempotent.fingerprint.enabled=true", "idempotent.hit-ratio.min-samples=2",
				"idempotent.audits.it-ledger.table=it_ledger", "idempotent.audits.it-ledger.key-column=idem_key",
				"idempotent.audits.it-ledger.filter=grp = '${it.run}-conflicts'" })
@EmbeddedKafka(partitions = 1, topics = { PayloadConflictIT.TOPIC, PayloadConflictIT.TOPIC + ".DLT" })
class PayloadConflictIT {

	static final String TOPIC = "it.conflicts";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String GROUP = RUN + "-conflicts";

	static final String TABLE = "it_conflicts_" + RUN.replace('-', '_');

	static JdbcTemplate jdbcForCleanup;

	@Autowired
	ItLedger ledger;

	@Autowired
	MeterRegistry meters;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	Audits audits;

	@Autowired
	BeanFactory beans;

	LogCapture conflictLog;

	LogCapture rootLog;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
		registry.add("idempotent.table-name", () -> TABLE);
	}

	@BeforeEach
	void captureLogs() {
		this.conflictLog = new LogCapture(ConflictLog.LOGGER_NAME);
		this.rootLog = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME);
		jdbcForCleanup = this.jdbc;
	}

	@AfterEach
	void releaseLogs() {
		this.conflictLog.close();
		this.rootLog.close();
	}

	@AfterAll
	static void dropTable() {
		if (jdbcForCleanup != null) {
			jdbcForCleanup.execute("DROP TABLE IF EXISTS " + TABLE);
		}
	}

	@Test
	void aResendWithDifferentContentIsSkippedAndReportedAsAConflict() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(kafkaBootstrapServers(this.beans))) {
			kafka.send(TOPIC, "order-conflict-1", "credit 100");
			kafka.send(TOPIC, "order-conflict-1", "credit 100");
			kafka.send(TOPIC, "order-conflict-1", "credit 999");
			await().atMost(KafkaTestSupport.timeout()).until(() -> count(MicrometerClaimListener.CLAIMS, "outcome",
					MicrometerClaimListener.HIT) == 2);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}

		assertThat(this.ledger.rows(GROUP, "order-conflict-1")).isOne();
		assertThat(count(MicrometerClaimListener.CONFLICTS, null, null)).isOne();
		assertThat(this.conflictLog.messages(Level.WARN)).singleElement().asString()
			.contains("scope=" + GROUP, "key=" + KeyMasker.MASKED.mask("order-conflict-1") + " ",
					"source=" + TOPIC + "-0@2", "payload=" + PayloadFingerprint.of("credit 999").substring(0, 12),
					"first_payload=" + PayloadFingerprint.of("credit 100").substring(0, 12))
			.doesNotContain("order-conflict-1 ");
		assertThat(this.jdbc.queryForObject("SELECT payload_fingerprint FROM " + TABLE + " WHERE scope = ?",
				String.class, GROUP)).isEqualTo(PayloadFingerprint.of("credit 100"));
		assertThat(this.meters.get(HitRatioMeters.HIT_RATIO).tag("scope", GROUP).gauge().value())
			.isEqualTo(2.0 / 3.0);
		assertThat(this.audits.run("it-ledger").duplicatedKeys()).isZero();
		assertThat(this.meters.get("idempotent.audit.duplicates").tag("audit", "it-ledger").gauge().value()).isZero();
		assertThat(this.rootLog.messages(Level.ERROR)).isEmpty();
	}

	private double count(String name, String tag, String value) {
		Counter counter = (tag != null) ? this.meters.find(name).tag("scope", GROUP).tag(tag, value).counter()
				: this.meters.find(name).tag("scope", GROUP).counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		ConflictListener conflictListener(ItLedger ledger) {
			return new ConflictListener(ledger);
		}

	}

	/** Credits each key once; the payload is the record's String value. */
	static class ConflictListener {

		private final ItLedger ledger;

		ConflictListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-conflicts")
		@IdempotentListener
		public void onPayment(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.ledger.credit(GROUP, key, payload);
		}

	}

}
