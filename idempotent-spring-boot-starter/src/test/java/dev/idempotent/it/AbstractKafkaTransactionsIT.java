package dev.idempotent.it;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.idempotent.claim.ClaimCheckpoint;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.jdbc.JdbcClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;

import static dev.idempotent.testsupport.BootLine.kafkaBootstrapServers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Consume-process-produce with Kafka transactions: Spring Boot's {@code KafkaTransactionManager} (from
 * {@code spring.kafka.producer.transaction-id-prefix}) on the listener containers, a JDBC
 * {@code DataSourceTransactionManager} as the {@code @Primary} transaction manager, and listeners that send their
 * output with the transactional {@code KafkaTemplate}. The claim's database transaction commits inside the
 * listener call; the offsets and the output commit after it, in the Kafka transaction. Failures under a Kafka
 * transaction go to the container's after-rollback processor, not to the error handler: the starter's gives them
 * the same retries, dead-letter topic, FAILED rows, not-retryable bad keys and transient back-off, on Boot's
 * factory and on a hand-built one.
 */
@SpringBootTest(classes = { ItApplication.class, ClaimTable.class, AbstractKafkaTransactionsIT.Listeners.class })
@EmbeddedKafka(partitions = 1,
		topics = { AbstractKafkaTransactionsIT.BOOT, AbstractKafkaTransactionsIT.HAND, AbstractKafkaTransactionsIT.HAND + ".DLT",
				AbstractKafkaTransactionsIT.CLAIM, AbstractKafkaTransactionsIT.CLAIM_SYNC, AbstractKafkaTransactionsIT.OUT },
		brokerProperties = { "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1" })
@TestPropertySource(properties = { "spring.kafka.producer.transaction-id-prefix=it-tx-",
		"idempotent.retry.max-retries=2", "idempotent.retry.interval=50ms",
		"idempotent.retry.transient-max-interval=100ms" })
abstract class AbstractKafkaTransactionsIT {

	static final String BOOT = "ktx.boot";

	static final String HAND = "ktx.hand";

	static final String CLAIM = "ktx.claim";

	static final String CLAIM_SYNC = "ktx.claim-sync";

	static final String OUT = "ktx.out";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String BOOT_GROUP = RUN + "-ktx-boot";

	static final String HAND_GROUP = RUN + "-ktx-hand";

	static final String CLAIM_GROUP = RUN + "-ktx-claim";

	static final String CLAIM_SYNC_GROUP = RUN + "-ktx-claim-sync";

	/** Per key: how often the hand-built factory's listener was called. */
	static final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	/** Per key: whether a Kafka transaction was active while the listener ran. */
	static final Map<String, Boolean> inKafkaTransaction = new ConcurrentHashMap<>();

	LogCapture kafkaLog;

	@Autowired
	ItLedger ledger;

	@Autowired
	ClaimTable claims;

	@Autowired
	MeterRegistry meters;

	@Autowired
	BeanFactory beans;

	@Autowired
	AfterRollbackProcessor<?, ?> afterRollbackProcessor;

	@Autowired
	FlakyClaimStore claimStore;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	/** The database of this run, for the applications a test starts itself. */
	abstract ItDatabase database();

	/** The subclasses share these maps (and the keys); each class runs on a broker and a database of its own. */
	@BeforeAll
	static void forgetCalls() {
		calls.clear();
		inKafkaTransaction.clear();
	}

	@BeforeEach
	void captureLogs() {
		this.kafkaLog = new LogCapture("org.springframework.kafka");
	}

	@AfterEach
	void releaseLogs() {
		this.kafkaLog.close();
	}

	@Test
	void aRecordTakesEffectOnceAndItsOutputAppearsOnceToAReadCommittedConsumer() throws Exception {
		assertThat(this.afterRollbackProcessor).isInstanceOf(DefaultAfterRollbackProcessor.class);
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader out = new DeadLetterReader(bootstrapServers(), OUT)) {
			for (int i = 0; i < 3; i++) {
				kafka.send(BOOT, "boot-order-1", "credit 1");
			}
			kafka.send(BOOT, "boot-order-2", "credit 2");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> count(BOOT_GROUP, MicrometerClaimListener.HIT) == 2 && kafka.lag(BOOT_GROUP, BOOT) == 0);

			assertThat(this.ledger.rows(BOOT_GROUP, "boot-order-1")).isOne();
			assertThat(this.ledger.rows(BOOT_GROUP, "boot-order-2")).isOne();
			assertThat(out.readToEnd()).extracting(ConsumerRecord::value)
				.as("the hits commit their offsets in the Kafka transaction and send nothing")
				.filteredOn((value) -> value.startsWith("out:boot-"))
				.containsExactly("out:boot-order-1", "out:boot-order-2");
			assertThat(inKafkaTransaction).containsEntry("boot-order-1", true);
		}
	}

	@Test
	void aFailingRecordOfAHandBuiltTransactionalFactoryIsDeadLetteredAndMarkedFailed() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader dlt = new DeadLetterReader(bootstrapServers(), HAND + ".DLT");
				DeadLetterReader out = new DeadLetterReader(bootstrapServers(), OUT)) {
			kafka.send(HAND, "hand-fails", "fail");
			kafka.send(HAND, "hand-after-failure", "credit");

			ConsumerRecord<String, String> dead = dlt.awaitValue("fail");
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.DEAD_LETTER_SCOPE)).isEqualTo(HAND_GROUP);
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.DEAD_LETTER_KEY)).isEqualTo("hand-fails");
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.claims.status(HAND_GROUP, "hand-fails") == 2);
			assertThat(this.claims.attempts(HAND_GROUP, "hand-fails")).as("first attempt and two retries").isEqualTo(3);
			assertThat(calls.get("hand-fails")).hasValue(3);
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(HAND_GROUP, "hand-after-failure") == 1 && kafka.lag(HAND_GROUP, HAND) == 0);
			assertThat(out.readToEnd()).extracting(ConsumerRecord::value)
				.as("the failed attempts' output was aborted with their Kafka transactions")
				.doesNotContain("out:hand-fails")
				.containsOnlyOnce("out:hand-after-failure");
		}
	}

	@Test
	void aBadKeyUnderAKafkaTransactionIsDeadLetteredAtOnceWithItsReason() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader dlt = new DeadLetterReader(bootstrapServers(), HAND + ".DLT")) {
			kafka.send(HAND, null, "hand: no key");
			kafka.send(HAND, "hand-after-bad-key", "credit");

			ConsumerRecord<String, String> dead = dlt.awaitValue("hand: no key");
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.REJECTION_REASON)).isEqualTo("NULL");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(HAND_GROUP, "hand-after-bad-key") == 1 && kafka.lag(HAND_GROUP, HAND) == 0);
			assertThat(count(HAND_GROUP, MicrometerClaimListener.REJECTED)).as("rejected once, not retried").isOne();
		}
	}

	@Test
	void aTransientFailureUnderAKafkaTransactionIsRetriedUntilItPassesAndNeverDeadLettered() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader dlt = new DeadLetterReader(bootstrapServers(), HAND + ".DLT")) {
			kafka.send(HAND, "hand-transient", "transient");

			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(HAND_GROUP, "hand-transient") == 1 && kafka.lag(HAND_GROUP, HAND) == 0);
			assertThat(calls.get("hand-transient"))
				.as("twelve transient failures, more than max-retries and than spring-kafka's default 9 retries, then success")
				.hasValue(13);
			assertThat(dlt.readToEnd()).extracting(ConsumerRecord::value).doesNotContain("transient");
		}
	}

	/**
	 * A transient claim failure (a deadlock or lock-wait timeout between concurrent claims) under
	 * a container's Kafka transaction must be retried inside the executor, as without Kafka transactions: the
	 * claim's database transaction is the executor's own. The container then never sees it (no rolled-back Kafka
	 * transaction, no redelivery). spring-kafka's {@code KafkaTransactionManager} runs with
	 * {@code SYNCHRONIZATION_NEVER}, so no transaction looks active on the thread and the executor retries.
	 */
	@Test
	void aTransientClaimFailureUnderAKafkaTransactionIsRetriedInsideTheExecutor() throws Exception {
		assertRetriedInsideTheExecutor(CLAIM, CLAIM_GROUP, "claim-deadlock-1");
	}

	/**
	 * The same with a Kafka transaction manager that synchronizes ({@code SYNCHRONIZATION_ALWAYS}, which
	 * applications set to tie other resources to the Kafka transaction): a transaction is then "actually active"
	 * on the thread, though none is bound to the business DataSource, and the executor must still retry.
	 */
	@Test
	void aTransientClaimFailureUnderASynchronizingKafkaTransactionIsRetriedInsideTheExecutor() throws Exception {
		assertRetriedInsideTheExecutor(CLAIM_SYNC, CLAIM_SYNC_GROUP, "claim-deadlock-sync-1");
	}

	private void assertRetriedInsideTheExecutor(String topic, String group, String key) throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers())) {
			kafka.send(topic, key, "credit");

			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(group, key) == 1 && kafka.lag(group, topic) == 0);
			assertThat(this.claimStore.claims(key)).as("the deadlocked claim and its retry").isEqualTo(2);
			assertThat(this.kafkaLog.events())
				.as("the Kafka transaction was not rolled back for the transient claim failure")
				.noneMatch((event) -> causedBy(event, TransientClaimException.class));
		}
	}

	/**
	 * A claim transaction the database rolled back after the work ran (found by the checkpoint before the commit) under a
	 * Kafka transaction: the work sent its output in the Kafka transaction, so the executor must not run it again inside
	 * that transaction (a read_committed consumer would see the output twice); the Kafka transaction rolls back and the
	 * record is delivered again, as after any transient failure.
	 */
	@Test
	void aClaimTransactionLostAfterTheWorkRanUnderAKafkaTransactionIsDeliveredAgainNotRunTwiceInIt() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader out = new DeadLetterReader(bootstrapServers(), OUT)) {
			kafka.send(CLAIM, "checkpoint-lost-1", "credit");

			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(CLAIM_GROUP, "checkpoint-lost-1") == 1 && kafka.lag(CLAIM_GROUP, CLAIM) == 0);
			assertThat(this.claimStore.checks("checkpoint-lost-1")).as("the lost transaction and the redelivery's").isEqualTo(2);
			assertThat(out.readToEnd()).extracting(ConsumerRecord::value)
				.as("the lost attempt's output was aborted with its Kafka transaction")
				.containsOnlyOnce("out:checkpoint-lost-1");
		}
	}

	@Test
	void aBatchListenerOnAFactoryWithAKafkaTransactionManagerStopsTheApplication() {
		assertThat(startupFailure(RefusedBatch.class)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Container factory 'batchTxFactory' has a Kafka transaction manager and runs the batch"
					+ " listener")
			.hasMessageContaining("recovers a whole failed batch");
	}

	@Test
	void anAfterRollbackProcessorThatIsNotABeanStopsTheApplication() {
		assertThat(startupFailure(RefusedAfterRollback.class)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Container factory 'droppingTxFactory' has a Kafka transaction manager and its own"
					+ " after-rollback processor (" + DefaultAfterRollbackProcessor.class.getName() + ") that is not a bean")
			.hasMessageContaining("IdempotentErrorHandlers");
	}

	private Throwable startupFailure(Class<?> configuration) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(ItApplication.class, configuration)
			.properties(database().properties().toArray(String[]::new))
			.properties("spring.kafka.bootstrap-servers=" + bootstrapServers(), "it.run=" + RUN,
					"spring.kafka.producer.transaction-id-prefix=it-refused-");
		return StartupFailure.rootCause(application);
	}

	private static boolean causedBy(ILoggingEvent event, Class<?> type) {
		for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
			if (t.getClassName().equals(type.getName())) {
				return true;
			}
		}
		return false;
	}

	private long count(String scope, String outcome) {
		return ClaimMeters.count(this.meters, scope, outcome);
	}

	private String bootstrapServers() {
		return kafkaBootstrapServers(this.beans);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		/** With a KafkaTransactionManager bean, Spring Boot defines no JDBC transaction manager: the application does. */
		@Bean
		@Primary
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> txFactory(ConsumerFactory<String, String> consumerFactory,
				KafkaTransactionManager<?, ?> kafkaTransactionManager) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.getContainerProperties().setKafkaAwareTransactionManager(kafkaTransactionManager);
			return factory;
		}

		/** Not a bean: a second KafkaAwareTransactionManager bean would keep Spring Boot from setting its own. */
		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> synchronizingTxFactory(
				ConsumerFactory<String, String> consumerFactory, ProducerFactory<?, ?> producerFactory) {
			KafkaTransactionManager<?, ?> manager = new KafkaTransactionManager<>(producerFactory);
			manager.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_ALWAYS);
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.getContainerProperties().setKafkaAwareTransactionManager(manager);
			return factory;
		}

		@Bean
		FlakyClaimStore flakyClaimStore(DataSource dataSource, SqlDialect dialect) {
			return new FlakyClaimStore(new JdbcClaimStore(dataSource, new TableName(TableName.DEFAULT), dialect,
					Clock.systemUTC()));
		}

		@Bean
		OutputListener outputListener(ItLedger ledger, KafkaTemplate<String, String> template) {
			return new OutputListener(ledger, template);
		}

	}

	/** Credits the ledger and sends one output record per processed record. */
	static class OutputListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> template;

		OutputListener(ItLedger ledger, KafkaTemplate<String, String> template) {
			this.ledger = ledger;
			this.template = template;
		}

		@KafkaListener(topics = BOOT, groupId = "${it.run}-ktx-boot")
		@IdempotentListener
		public void onBootFactory(ConsumerRecord<String, String> record) {
			inKafkaTransaction.put(record.key(), this.template.inTransaction());
			process(BOOT_GROUP, record);
		}

		@KafkaListener(topics = HAND, groupId = "${it.run}-ktx-hand", containerFactory = "txFactory")
		@IdempotentListener
		public void onHandBuiltFactory(ConsumerRecord<String, String> record) {
			int call = calls.computeIfAbsent(String.valueOf(record.key()), (k) -> new AtomicInteger()).incrementAndGet();
			process(HAND_GROUP, record);
			if ("fail".equals(record.value())) {
				throw new IllegalStateException("the business rejects this record");
			}
			if ("transient".equals(record.value()) && call <= 12) {
				throw new TransientDataAccessResourceException("the database is restarting");
			}
		}

		@KafkaListener(topics = CLAIM, groupId = "${it.run}-ktx-claim", containerFactory = "txFactory")
		@IdempotentListener
		public void onClaimRetry(ConsumerRecord<String, String> record) {
			process(CLAIM_GROUP, record);
		}

		@KafkaListener(topics = CLAIM_SYNC, groupId = "${it.run}-ktx-claim-sync", containerFactory = "synchronizingTxFactory")
		@IdempotentListener
		public void onClaimRetrySynchronized(ConsumerRecord<String, String> record) {
			process(CLAIM_SYNC_GROUP, record);
		}

		private void process(String group, ConsumerRecord<String, String> record) {
			this.ledger.credit(group, record.key(), record.value());
			this.template.send(OUT, record.key(), "out:" + record.key());
		}

	}

	/** A batch listener on a factory with Spring Boot's Kafka transaction manager. */
	@Configuration(proxyBeanMethods = false)
	static class RefusedBatch {

		@Bean
		@Primary
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> batchTxFactory(
				ConsumerFactory<String, String> consumerFactory, KafkaTransactionManager<?, ?> kafkaTransactionManager) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.setBatchListener(true);
			factory.getContainerProperties().setKafkaAwareTransactionManager(kafkaTransactionManager);
			return factory;
		}

		@Bean
		RefusedBatchListener refusedBatchListener() {
			return new RefusedBatchListener();
		}

	}

	static class RefusedBatchListener {

		@KafkaListener(topics = HAND, groupId = "${it.run}-refused-batch", containerFactory = "batchTxFactory")
		@IdempotentListener
		public void on(List<ConsumerRecord<String, String>> records) {
		}

	}

	/** A factory with a Kafka transaction manager and spring-kafka's logging after-rollback processor of its own. */
	@Configuration(proxyBeanMethods = false)
	static class RefusedAfterRollback {

		@Bean
		@Primary
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> droppingTxFactory(
				ConsumerFactory<String, String> consumerFactory, KafkaTransactionManager<?, ?> kafkaTransactionManager) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.getContainerProperties().setKafkaAwareTransactionManager(kafkaTransactionManager);
			factory.setAfterRollbackProcessor(new DefaultAfterRollbackProcessor<>());
			return factory;
		}

		@Bean
		RefusedSingleListener refusedSingleListener() {
			return new RefusedSingleListener();
		}

	}

	static class RefusedSingleListener {

		@KafkaListener(topics = HAND, groupId = "${it.run}-refused-single", containerFactory = "droppingTxFactory")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) {
		}

	}

	/** The JDBC claim store, failing the first claim of each {@code claim-deadlock-*} key as a deadlock would. */
	static class FlakyClaimStore implements ClaimStore {

		private final ClaimStore delegate;

		private final Map<String, AtomicInteger> claims = new ConcurrentHashMap<>();

		private final Set<String> failed = ConcurrentHashMap.newKeySet();

		private final Map<String, AtomicInteger> checks = new ConcurrentHashMap<>();

		private final Set<String> lost = ConcurrentHashMap.newKeySet();

		private final ThreadLocal<String> lastClaimed = new ThreadLocal<>();

		FlakyClaimStore(ClaimStore delegate) {
			this.delegate = delegate;
		}

		int claims(String key) {
			AtomicInteger count = this.claims.get(key);
			return (count != null) ? count.get() : 0;
		}

		int checks(String key) {
			AtomicInteger count = this.checks.get(key);
			return (count != null) ? count.get() : 0;
		}

		@Override
		public ClaimResult claim(ClaimRequest request) {
			this.lastClaimed.set(request.key());
			this.claims.computeIfAbsent(request.key(), (k) -> new AtomicInteger()).incrementAndGet();
			if (request.key().startsWith("claim-deadlock") && this.failed.add(request.key())) {
				throw new TransientClaimException("Deadlock found when trying to get lock (simulated)",
						new java.sql.SQLTransactionRollbackException("simulated", "40001", 1213));
			}
			return this.delegate.claim(request);
		}

		@Override
		public ClaimCheckpoint checkpoint() {
			ClaimCheckpoint checkpoint = this.delegate.checkpoint();
			String key = this.lastClaimed.get();
			return () -> {
				checkpoint.requireHeld();
				this.checks.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
				if (key.startsWith("checkpoint-lost") && this.lost.add(key)) {
					throw new TransientClaimException("The database rolled back the transaction of the claims without an"
							+ " error reaching the application (simulated)", new java.sql.SQLException("simulated", "40001"));
				}
			};
		}

		@Override
		public boolean isConflict(Throwable failure) {
			return this.delegate.isConflict(failure);
		}

		@Override
		public void markFailed(ClaimRequest request, int attempts, String lastError) {
			this.delegate.markFailed(request, attempts, lastError);
		}

	}

}
