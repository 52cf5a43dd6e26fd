package dev.idempotent.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An expected outage logs no ERROR (docs/semantics.md, "Failures"): the database goes away in the middle of a
 * listener's transaction (a {@link TcpRelay} in front of it is cut while the method runs, so the work fails and the
 * rollback fails too), stays away while the record is retried (the error handler retries it at least twice against the
 * unreachable database), and comes back; the record then takes effect once, and no line at ERROR was logged from the
 * cut to the end.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractDatabaseOutageIT.Listeners.class },
		properties = { "spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500",
				"spring.datasource.hikari.maximum-pool-size=4", "idempotent.retry.transient-max-interval=500ms" })
@EmbeddedKafka(partitions = 1, topics = AbstractDatabaseOutageIT.TOPIC)
abstract class AbstractDatabaseOutageIT {

	static final String TOPIC = "outage.orders";

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	OutageListener listener;

	@Value("${it.run}")
	String run;

	/** Attached per test: Spring Boot resets logging when it starts the context. */
	LogCapture rootLog;

	/** The relay between the application and its database. */
	abstract TcpRelay relay();

	/** Point the application at its database through a relay. */
	static TcpRelay relayTo(TestDatabases.Connection database, DynamicPropertyRegistry registry) {
		try {
			TcpRelay relay = TcpRelay.to(database.url());
			registry.add("spring.datasource.url", () -> relay.relayed(database.url()));
			registry.add("spring.datasource.username", database::user);
			registry.add("spring.datasource.password", database::password);
			String run = UUID.randomUUID().toString().substring(0, 8);
			registry.add("it.run", () -> run);
			return relay;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@BeforeEach
	void captureLogs() {
		this.rootLog = new LogCapture(Logger.ROOT_LOGGER_NAME);
	}

	@AfterEach
	void releaseLogs() {
		this.rootLog.close();
		relay().restore();
	}

	@Test
	void theDatabaseGoingAwayMidTransactionLogsNoErrorAndTheRecordTakesEffectOnceAfterIt() throws Exception {
		String group = this.run + "-outage";
		String key = group + "-order-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, key, "credit 10");
			assertThat(this.listener.entered().await(60, TimeUnit.SECONDS)).as("the listener runs").isTrue();
			relay().cut();
			this.listener.release().countDown();
			// the failure mid-transaction, then at least two deliveries retried against the database while it is away
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.listener.failures().get() >= 1 && retriedDeliveries() >= 3 && relay().refused() > 0);
			relay().restore();
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, TOPIC) == 0);
		}

		assertThat(this.ledger.rows(group, key)).isOne();
		List<ILoggingEvent> errors = this.rootLog.events().stream().filter((e) -> e.getLevel() == Level.ERROR).toList();
		assertThat(errors).as("ERROR lines during the outage:%n%s", describe(errors)).isEmpty();
	}

	/** The failed deliveries the error handler kept for a retry (spring-kafka 4 logs each at INFO). */
	private long retriedDeliveries() {
		return this.rootLog.events()
			.stream()
			.filter((e) -> e.getFormattedMessage().startsWith("Record in retry and not yet recovered"))
			.count();
	}

	private static String describe(List<ILoggingEvent> events) {
		StringBuilder text = new StringBuilder();
		for (ILoggingEvent event : events) {
			text.append(event.getLoggerName()).append(": ").append(event.getFormattedMessage()).append('\n');
			if (event.getThrowableProxy() != null) {
				String trace = ThrowableProxyUtil.asString(event.getThrowableProxy());
				text.append(trace, 0, Math.min(trace.length(), 600)).append("\n");
			}
		}
		return text.toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		OutageListener outageListener(ItLedger ledger, @Value("${it.run}") String run) {
			return new OutageListener(ledger, run + "-outage");
		}

	}

	/** Blocks its first call until the test has cut the database away, then credits the ledger. */
	static class OutageListener {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger failures = new AtomicInteger();

		private final ItLedger ledger;

		private final String group;

		OutageListener(ItLedger ledger, String group) {
			this.ledger = ledger;
			this.group = group;
		}

		// methods, not fields, for the test: the bean is a proxy

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch release() {
			return this.release;
		}

		public AtomicInteger failures() {
			return this.failures;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-outage")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) throws InterruptedException {
			if (this.calls.incrementAndGet() == 1) {
				this.entered.countDown();
				this.release.await(60, TimeUnit.SECONDS);
			}
			try {
				this.ledger.credit(this.group, record.key(), record.value());
			}
			catch (RuntimeException ex) {
				this.failures.incrementAndGet();
				throw ex;
			}
		}

	}

}
