package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.metrics.MicrometerClaimListener;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two listeners of one consumer group, end to end on a real broker and database: listener A on
 * {@code orders-created} and B on {@code orders-paid}, both keyed on the order id. With explicit scopes each
 * processes order 42 once and a replay of both topics is all hits; with the group id as the implicit scope of both
 * the application refuses to start (before the fix B's record for order 42 was skipped as A's hit). The same for a
 * listener on the dead-letter topic in the group of the main listener, and, for a group id that a container
 * customizer sets after the startup check, the check at delivery dead-letters the record with
 * {@code SCOPE_CONFLICT}.
 */
@EmbeddedKafka(partitions = 1)
abstract class AbstractSharedGroupScopesIT {

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String TABLE = "scopes_" + RUN.replace('-', '_');

	abstract ItDatabase database();

	private ApplicationContextRunner runner(EmbeddedKafkaBroker broker, String group, Class<?> listeners) {
		return new ApplicationContextRunner().withUserConfiguration(ItApplication.class, listeners)
			.withPropertyValues(database().properties().toArray(String[]::new))
			.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest", "spring.flyway.enabled=false",
					"idempotent.table-name=" + TABLE, "idempotent.jdbc.initialize-schema=always",
					"idempotent.retry.interval=50ms", "idempotent.retry.max-retries=0",
					"spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "it.group=" + group);
	}

	@AfterEach
	void dropTable() {
		TestDatabases.drop(database().dataSource(), TABLE);
	}

	@Test
	void twoListenersOfOneGroupWithExplicitScopesEachProcessTheOrderOnce(EmbeddedKafkaBroker broker) throws Exception {
		String group = RUN + "-explicit";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, group + ".created", group + ".paid");
			kafka.send(group + ".created", "order-42", "created 42");
			kafka.send(group + ".paid", "order-42", "paid 42");
			runner(broker, group, ExplicitScopes.class).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> ledger.rows(group + "-created", "order-42") == 1
							&& ledger.rows(group + "-paid", "order-42") == 1);

				kafka.send(group + ".created", "order-42", "created 42");
				kafka.send(group + ".paid", "order-42", "paid 42");
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> hits(meters, group + "-created") == 1 && hits(meters, group + "-paid") == 1);
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> kafka.lag(group, group + ".created") == 0 && kafka.lag(group, group + ".paid") == 0);
				assertThat(ledger.rows(group + "-created", "order-42")).isOne();
				assertThat(ledger.rows(group + "-paid", "order-42")).isOne();
				assertThat(scopes(context.getBean(JdbcTemplate.class), "order-42"))
					.containsExactlyInAnyOrder(group + "-created", group + "-paid");
			});
		}
	}

	@Test
	void twoListenersOfOneGroupWithTheGroupIdAsImplicitScopeAreRefusedAtStartup(EmbeddedKafkaBroker broker) {
		String group = RUN + "-implicit";
		runner(broker, group, ImplicitScopes.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context).getFailure()
				.hasMessageContaining("@IdempotentListener methods ")
				.hasMessageContaining(ImplicitScopes.Listeners.class.getName() + ".onCreated(java.lang.String,java.lang.String)")
				.hasMessageContaining(ImplicitScopes.Listeners.class.getName() + ".onPaid(java.lang.String,java.lang.String)")
				.hasMessageContaining("resolve to the same scope '" + group + "'")
				.hasMessageContaining("give the method that used them scope = \"" + group + "\"");
		});
	}

	@Test
	void aDeadLetterListenerInTheGroupOfTheMainListenerIsRefusedWhenItsScopeIsImplicit(EmbeddedKafkaBroker broker) {
		String group = RUN + "-dlt-implicit";
		runner(broker, group, ImplicitDeadLetterScope.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context).getFailure()
				.hasMessageContaining(ImplicitDeadLetterScope.Listeners.class.getName() + ".onOrder(")
				.hasMessageContaining(ImplicitDeadLetterScope.Listeners.class.getName() + ".onDeadLetter(")
				.hasMessageContaining("resolve to the same scope '" + group + "'");
		});
	}

	@Test
	void withExplicitScopesTheDeadLetterListenerLeavesTheMainListenersFailedRowAlone(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = RUN + "-dlt-explicit";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, group + ".orders", group + ".orders.DLT");
			kafka.send(group + ".orders", "order-7", "fail");
			runner(broker, group, ExplicitDeadLetterScope.class).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				await().atMost(KafkaTestSupport.timeout()).until(() -> ledger.rows(group + "-dlt", "order-7") == 1);
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> kafka.lag(group, group + ".orders") == 0 && kafka.lag(group, group + ".orders.DLT") == 0);

				assertThat(status(jdbc, group, "order-7")).isEqualTo(2); // FAILED: a replay to the main topic claims it
				assertThat(status(jdbc, group + "-dlt", "order-7")).isEqualTo(1);
				assertThat(ledger.rows(group, "order-7")).isZero();
			});
		}
	}

	@Test
	void aGroupIdKnownOnlyAtDeliveryIsCheckedThereAndTheConflictingRecordIsDeadLettered(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = RUN + "-runtime";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> dlt = deadLetterConsumer(broker, group)) {
			kafka.createTopics(1, group + ".created", group + ".paid", group + ".paid.DLT");
			kafka.send(group + ".created", "order-42", "created 42");
			runner(broker, group, GroupFromListenerBean.class).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				await().atMost(KafkaTestSupport.timeout()).until(() -> ledger.rows(group + "-created", "order-42") == 1);
				kafka.send(group + ".paid", "order-42", "paid 42");

				dlt.subscribe(List.of(group + ".paid.DLT"));
				List<ConsumerRecord<String, String>> dead = new ArrayList<>();
				await().atMost(KafkaTestSupport.timeout()).until(() -> {
					KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
					return !dead.isEmpty();
				});
				assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("SCOPE_CONFLICT");
				assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_MESSAGE))
					.contains(GroupFromListenerBean.Paid.class.getName() + ".onPaid(")
					.contains("already belongs to")
					.contains(GroupFromListenerBean.Created.class.getName() + ".onCreated(");
				await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, group + ".paid") == 0);
				assertThat(ledger.rows(group + "-paid", "order-42")).isZero();
				assertThat(hits(context.getBean(MeterRegistry.class), group)).isZero();
			});
		}
	}

	/**
	 * A listener bean created after startup ({@code @Lazy}) escapes the startup check. Before the fix a method
	 * declaring another method's group id as its scope was not checked at delivery either: B's record for order 42
	 * was skipped as A's hit. Now it is dead-lettered with {@code SCOPE_CONFLICT}.
	 */
	@Test
	void aLazyListenerDeclaringAnotherMethodsGroupIdAsScopeIsDeadLettered(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = RUN + "-lazy";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> dlt = deadLetterConsumer(broker, group)) {
			kafka.createTopics(1, group + ".created", group + ".paid", group + ".paid.DLT");
			kafka.send(group + ".created", "order-42", "created 42");
			runner(broker, group, LazyExplicitScope.class).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				await().atMost(KafkaTestSupport.timeout()).until(() -> ledger.rows(group + "-created", "order-42") == 1);
				context.getBean(LazyExplicitScope.Paid.class); // created now: its container starts
				kafka.send(group + ".paid", "order-42", "paid 42");

				dlt.subscribe(List.of(group + ".paid.DLT"));
				List<ConsumerRecord<String, String>> dead = new ArrayList<>();
				await().atMost(KafkaTestSupport.timeout()).until(() -> {
					KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
					return !dead.isEmpty() || hits(context.getBean(MeterRegistry.class), group) > 0;
				});
				assertThat(hits(context.getBean(MeterRegistry.class), group)).isZero();
				assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_REASON)).isEqualTo("SCOPE_CONFLICT");
				assertThat(header(dead.get(0), IdempotencyHeaders.REJECTION_MESSAGE))
					.contains(LazyExplicitScope.Paid.class.getName() + ".onPaid(")
					.contains(LazyExplicitScope.Created.class.getName() + ".onCreated(");
				assertThat(ledger.rows(group + "-paid", "order-42")).isZero();
			});
		}
	}

	/** The same for a batch listener: every record of the batch is dead-lettered with {@code SCOPE_CONFLICT}. */
	@Test
	void aLazyBatchListenerDeclaringAnotherMethodsGroupIdAsScopeDeadLettersEachRecord(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = RUN + "-lazy-batch";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> dlt = deadLetterConsumer(broker, group)) {
			kafka.createTopics(1, group + ".created", group + ".paid", group + ".paid.DLT");
			kafka.send(group + ".created", "order-42", "created 42");
			runner(broker, group, LazyExplicitBatchScope.class).withUserConfiguration(BatchContainerFactory.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					ItLedger ledger = context.getBean(ItLedger.class);
					MeterRegistry meters = context.getBean(MeterRegistry.class);
					await().atMost(KafkaTestSupport.timeout())
						.until(() -> ledger.rows(group + "-created", "order-42") == 1);
					kafka.send(group + ".paid", "order-42", "paid 42");
					kafka.send(group + ".paid", "order-43", "paid 43");
					context.getBean(LazyExplicitBatchScope.Paid.class);

					dlt.subscribe(List.of(group + ".paid.DLT"));
					List<ConsumerRecord<String, String>> dead = new ArrayList<>();
					await().atMost(KafkaTestSupport.timeout()).until(() -> {
						KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
						return dead.size() >= 2 || hits(meters, group) > 0;
					});
					assertThat(hits(meters, group)).isZero();
					assertThat(dead).extracting((record) -> header(record, IdempotencyHeaders.REJECTION_REASON))
						.containsExactly("SCOPE_CONFLICT", "SCOPE_CONFLICT");
					await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group + "-paid", group + ".paid") == 0);
					assertThat(ledger.rows(group + "-paid")).isZero();
				});
		}
	}

	private static double hits(MeterRegistry meters, String scope) {
		Counter counter = meters.find(MicrometerClaimListener.CLAIMS)
			.tag("scope", scope)
			.tag("outcome", MicrometerClaimListener.HIT)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static List<String> scopes(JdbcTemplate jdbc, String key) {
		return jdbc.queryForList("SELECT scope FROM " + TABLE + " WHERE idempotency_key = ?", String.class, key);
	}

	private static int status(JdbcTemplate jdbc, String scope, String key) {
		return jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE scope = ? AND idempotency_key = ?",
				Integer.class, scope, key);
	}

	private static Consumer<String, String> deadLetterConsumer(EmbeddedKafkaBroker broker, String group) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(broker.getBrokersAsString(), group + "-dlt-reader");
		props.put("auto.offset.reset", "earliest");
		return new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer())
			.createConsumer();
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
	}

	/** Registers one listener bean of the given class, built from the ledger and {@code it.group}. */
	abstract static class ListenerBean {

		final ItLedger ledger;

		final String group;

		ListenerBean(ItLedger ledger, String group) {
			this.ledger = ledger;
			this.group = group;
		}

	}

	/** A on created, B on paid, one group, each with its own scope. */
	@Configuration(proxyBeanMethods = false)
	static class ExplicitScopes {

		@Bean
		Listeners explicitScopeListeners(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listeners(ledger, group);
		}

		static class Listeners extends ListenerBean {

			Listeners(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.created", groupId = "${it.group}")
			@IdempotentListener(scope = "${it.group}-created")
			public void onCreated(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-created", key, payload);
			}

			@KafkaListener(topics = "${it.group}.paid", groupId = "${it.group}")
			@IdempotentListener(scope = "${it.group}-paid")
			public void onPaid(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-paid", key, payload);
			}

		}

	}

	/** A on created, B on paid, one group, both taking the group id as their scope. */
	@Configuration(proxyBeanMethods = false)
	static class ImplicitScopes {

		@Bean
		Listeners implicitScopeListeners(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listeners(ledger, group);
		}

		static class Listeners extends ListenerBean {

			Listeners(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.created", groupId = "${it.group}")
			@IdempotentListener
			public void onCreated(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-created", key, payload);
			}

			@KafkaListener(topics = "${it.group}.paid", groupId = "${it.group}")
			@IdempotentListener
			public void onPaid(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-paid", key, payload);
			}

		}

	}

	/** A main listener and a listener on its dead-letter topic, one group, both taking the group id as scope. */
	@Configuration(proxyBeanMethods = false)
	static class ImplicitDeadLetterScope {

		@Bean
		Listeners implicitDeadLetterListeners(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listeners(ledger, group);
		}

		static class Listeners extends ListenerBean {

			Listeners(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.orders", groupId = "${it.group}")
			@IdempotentListener
			public void onOrder(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group, key, payload);
			}

			@KafkaListener(topics = "${it.group}.orders.DLT", groupId = "${it.group}")
			@IdempotentListener
			public void onDeadLetter(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-dlt", key, payload);
			}

		}

	}

	/**
	 * The main listener keeps the group id as its declared scope (the keys it stored stay valid); the dead-letter
	 * listener has its own. The main listener fails every "fail" payload.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ExplicitDeadLetterScope {

		@Bean
		Listeners explicitDeadLetterListeners(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listeners(ledger, group);
		}

		static class Listeners extends ListenerBean {

			Listeners(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.orders", groupId = "${it.group}")
			@IdempotentListener(scope = "${it.group}")
			public void onOrder(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group, key, payload);
				if (payload.equals("fail")) {
					throw new IllegalStateException("cannot process " + key);
				}
			}

			@KafkaListener(topics = "${it.group}.orders.DLT", groupId = "${it.group}")
			@IdempotentListener(scope = "${it.group}-dlt")
			public void onDeadLetter(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-dlt", key, payload);
			}

		}

	}

	/**
	 * A takes its group from the annotation; B's listener id is its group as far as the annotation says, but a
	 * container customizer (a bean Spring Boot applies to its container factory) moves B's container into A's group,
	 * after the startup check: only the check at delivery can see it.
	 */
	@Configuration(proxyBeanMethods = false)
	static class GroupFromListenerBean {

		@Bean
		Created createdListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Created(ledger, group);
		}

		@Bean
		Paid paidListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Paid(ledger, group);
		}

		@Bean
		ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> paidIntoCreatedsGroup(
				@Value("${it.group}") String group) {
			return (container) -> {
				if ((group + "-paid-listener").equals(container.getListenerId())) {
					container.getContainerProperties().setGroupId(group);
				}
			};
		}

		static class Created extends ListenerBean {

			Created(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.created", groupId = "${it.group}")
			@IdempotentListener
			public void onCreated(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-created", key, payload);
			}

		}

		static class Paid extends ListenerBean {

			Paid(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(id = "${it.group}-paid-listener", topics = "${it.group}.paid")
			@IdempotentListener
			public void onPaid(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-paid", key, payload);
			}

		}

	}

	/** A takes its group id implicitly; B, a bean created after startup, declares that group id as its scope. */
	@Configuration(proxyBeanMethods = false)
	static class LazyExplicitScope {

		@Bean
		Created lazyScopeCreatedListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Created(ledger, group);
		}

		@Bean
		@Lazy
		Paid lazyScopePaidListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Paid(ledger, group);
		}

		static class Created extends ListenerBean {

			Created(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.created", groupId = "${it.group}")
			@IdempotentListener
			public void onCreated(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-created", key, payload);
			}

		}

		static class Paid extends ListenerBean {

			Paid(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.paid", groupId = "${it.group}-paid")
			@IdempotentListener(scope = "${it.group}")
			public void onPaid(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group + "-paid", key, payload);
			}

		}

	}

	/** As {@link LazyExplicitScope}, B a batch listener. */
	@Configuration(proxyBeanMethods = false)
	static class LazyExplicitBatchScope {

		@Bean
		LazyExplicitScope.Created lazyBatchScopeCreatedListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new LazyExplicitScope.Created(ledger, group);
		}

		@Bean
		@Lazy
		Paid lazyBatchScopePaidListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Paid(ledger, group);
		}

		static class Paid extends ListenerBean {

			Paid(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@KafkaListener(topics = "${it.group}.paid", groupId = "${it.group}-paid", containerFactory = "batchFactory")
			@IdempotentListener(scope = "${it.group}")
			public void onPaid(List<ConsumerRecord<String, String>> records) {
				records.forEach((record) -> this.ledger.credit(this.group + "-paid", record.key(), record.value()));
			}

		}

	}

}
