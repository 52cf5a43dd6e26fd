package dev.idempotent.observation;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.it.ItApplication;
import dev.idempotent.it.ItLedger;
import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.KeyMasker;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.CLAIM_SPAN_IS_CHILD_OF_LISTENER_SPAN;
import static dev.idempotent.testsupport.BootLine.LISTENER_SPAN_SUFFIX;
import static dev.idempotent.testsupport.BootLine.kafkaBootstrapServers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tracing end to end, on a real broker and MariaDB, with spring-kafka's listener observations on and a tracer from
 * {@code micrometer-tracing-test}: every claim is a span whose parent is spring-kafka's span of the delivery, in the
 * same trace; a hit reads {@code idempotent hit} and carries the masked key and the record's
 * {@code topic-partition@offset}; a rejected key is a span with its error.
 */
@SpringBootTest(classes = { ItApplication.class, ListenerTracingIT.Tracing.class },
		properties = "spring.kafka.listener.observation-enabled=true")
@EmbeddedKafka(partitions = 1, topics = { ListenerTracingIT.TOPIC, ListenerTracingIT.TOPIC + ".DLT" })
class ListenerTracingIT {

	static final String TOPIC = "it.tracing";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String GROUP = RUN + "-tracing";

	static final String TABLE = "it_tracing_" + RUN.replace('-', '_');

	static JdbcTemplate jdbcForCleanup;

	@Autowired
	SimpleTracer tracer;

	@Autowired
	ItLedger ledger;

	@Autowired
	BeanFactory beans;

	@Autowired
	JdbcTemplate jdbc;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
		registry.add("idempotent.table-name", () -> TABLE);
	}

	@AfterAll
	static void dropTable() {
		if (jdbcForCleanup != null) {
			jdbcForCleanup.execute("DROP TABLE IF EXISTS " + TABLE);
		}
	}

	@Test
	void eachClaimIsAChildSpanOfTheListenersSpanAndAHitIsVisibleAtAGlance() throws Exception {
		jdbcForCleanup = this.jdbc;
		try (KafkaTestSupport kafka = new KafkaTestSupport(kafkaBootstrapServers(this.beans))) {
			kafka.send(TOPIC, "order-trace-1", "credit 100");
			kafka.send(TOPIC, "order-trace-1", "credit 100");
			kafka.send(TOPIC, "order-trace-2", "credit 200");
			kafka.send(TOPIC, null, "no key");
			await().atMost(KafkaTestSupport.timeout())
				.untilAsserted(() -> assertThat(claimSpans()).as("spans %s", this.tracer.getSpans()).hasSize(4));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}

		assertThat(this.ledger.rows(GROUP)).isEqualTo(2);
		Map<String, SimpleSpan> byId = this.tracer.getSpans()
			.stream()
			.collect(Collectors.toMap(SimpleSpan::getSpanId, Function.identity(), (a, b) -> a));
		List<SimpleSpan> claims = claimSpans();
		assertThat(claims).extracting(SimpleSpan::getName)
			.containsExactly("idempotent claimed", "idempotent hit", "idempotent claimed", "idempotent rejected");
		for (SimpleSpan claim : claims) {
			SimpleSpan parent = listenerSpan(claim, byId);
			assertThat(parent).as("the listener span above %s", claim.getName()).isNotNull();
			assertThat(parent.getName()).isEqualTo(TOPIC + LISTENER_SPAN_SUFFIX);
			assertThat(parent.getTags()).containsEntry("messaging.kafka.consumer.group", GROUP);
			assertThat(claim.getTraceId()).isEqualTo(parent.getTraceId());
		}
		assertThat(claims).extracting(SimpleSpan::getParentId).doesNotHaveDuplicates();
		SimpleSpan hit = claims.get(1);
		assertThat(hit.getTags()).containsEntry("idempotent.outcome", "hit")
			.containsEntry("idempotent.scope", GROUP)
			.containsEntry("idempotent.mode", "transactional")
			.containsEntry("idempotent.key", KeyMasker.MASKED.mask("order-trace-1"))
			.containsEntry("idempotent.source", TOPIC + "-0@1");
		assertThat(hit.getTags().values()).noneMatch((value) -> value.contains("order-trace-1"));
		assertThat(claims.get(3).getTags()).containsEntry("idempotent.outcome", "rejected");
		assertThat(claims.get(3).getError()).isNotNull();
	}

	/**
	 * The listener's span above a claim's: its parent, or on spring-kafka 3 its grandparent (an unnamed span is
	 * between them there).
	 */
	private static SimpleSpan listenerSpan(SimpleSpan claim, Map<String, SimpleSpan> byId) {
		SimpleSpan parent = byId.get(claim.getParentId());
		if (!CLAIM_SPAN_IS_CHILD_OF_LISTENER_SPAN && parent != null) {
			assertThat(parent.getName()).as("the span between the listener's and the claim's").isNull();
			parent = byId.get(parent.getParentId());
		}
		return parent;
	}

	/** The spans of claims, in the order they ended. */
	private List<SimpleSpan> claimSpans() {
		return this.tracer.getSpans()
			.stream()
			.filter((span) -> span.getName() != null && span.getName().startsWith("idempotent "))
			.filter((span) -> span.getEndTimestamp().toEpochMilli() > 0)
			.toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class Tracing {

		@Bean
		SimpleTracer tracer() {
			return new SimpleTracer();
		}

		/** A registry whose observations become spans of the test tracer; spring-kafka's containers use it too. */
		@Bean
		ObservationRegistry observationRegistry(SimpleTracer tracer) {
			ObservationRegistry registry = ObservationRegistry.create();
			// every observation, spring-kafka's receiver contexts included, becomes a span (no header propagation:
			// the test's producer sends no trace headers, so the listener's span is the root of each trace)
			registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
			return registry;
		}

		@Bean
		TracedListener tracedListener(ItLedger ledger) {
			return new TracedListener(ledger);
		}

	}

	/** Credits each key once. */
	static class TracedListener {

		private final ItLedger ledger;

		TracedListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-tracing")
		@IdempotentListener
		public void onPayment(String payload) {
			this.ledger.credit(GROUP, IdempotencyContext.currentKey(), payload);
		}

	}

}
