package dev.idempotent.it;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.fastpath.redis.RedisProcess;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.metrics.MicrometerClaimListener;
import dev.idempotent.metrics.MicrometerFastPathListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Redis fast path end to end, on a real broker, a real database and a private {@code redis-server}: replays are
 * answered by Redis, and Redis flushed ({@code FLUSHALL}), restarted, and unreachable ({@code SIGSTOP}) in the middle
 * of the stream (each fault done by the listener itself at a given record, so it falls exactly there) lose nothing
 * and double nothing; while Redis is unreachable the stream keeps moving on the database alone.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractRedisFastPathIT.Listeners.class },
		properties = { "idempotent.fast-path.redis.enabled=true", "idempotent.fast-path.redis.timeout=100ms",
				"idempotent.fast-path.redis.pause-after-error=300ms" })
@EmbeddedKafka(partitions = 1, topics = { AbstractRedisFastPathIT.SINGLE, AbstractRedisFastPathIT.BATCH,
		AbstractRedisFastPathIT.SENDING, AbstractRedisFastPathIT.SENT, AbstractRedisFastPathIT.POLLED })
abstract class AbstractRedisFastPathIT {

	static final String SINGLE = "fast-path.single";

	static final String BATCH = "fast-path.batch";

	static final String SENDING = "fast-path.sending";

	static final String SENT = "fast-path.sent";

	static final String POLLED = "fast-path.polled";

	static final String FLUSH = "-flush-redis";

	static final String SUSPEND = "-suspend-redis";

	static final String RESTART = "-restart-redis";

	static RedisProcess redis;

	@Autowired
	ItLedger ledger;

	@Autowired
	MeterRegistry meters;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Value("${it.run}")
	String run;

	@DynamicPropertySource
	static void redisAndRun(DynamicPropertyRegistry registry) throws IOException {
		if (redis == null) {
			redis = RedisProcess.start();
		}
		String run = UUID.randomUUID().toString().substring(0, 8);
		registry.add("it.run", () -> run);
		registry.add("it.redis-port", () -> redis.port());
	}

	@AfterAll
	static void stopRedis() {
		if (redis != null) {
			redis.close();
			redis = null;
		}
	}

	@Test
	void redisFlushedRestartedAndUnreachableMidStreamLosesAndDoublesNothing() throws Exception {
		String scope = this.run + "-single";
		List<String> first = keys(scope + "-a", 40);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(SINGLE, first);
			awaitDone(kafka, scope, SINGLE);
			assertThat(redis.keys()).as("remembered after their commit").isGreaterThanOrEqualTo(40);

			// a replay, with Redis flushed in the middle of it
			long fastHits = fastPathHits(scope);
			List<String> flushed = new ArrayList<>(first.subList(0, 20));
			flushed.add(scope + FLUSH);
			flushed.addAll(first.subList(20, 40));
			flushed.addAll(keys(scope + "-b", 20));
			flushed.addAll(first.subList(0, 10));
			kafka.sendAll(SINGLE, flushed);
			awaitDone(kafka, scope, SINGLE);
			assertThat(fastPathHits(scope) - fastHits).as("the replay before the flush, answered by Redis")
				.isGreaterThanOrEqualTo(20);

			// Redis unreachable: the rest of the stream is processed while it still is. The records polled with the
			// suspension were looked up with it, before it; the next polls find Redis away
			List<String> unreachable = new ArrayList<>(List.of(scope + SUSPEND));
			unreachable.addAll(keys(scope + "-c", 30));
			unreachable.addAll(first);
			List<String> nextPolls = new ArrayList<>(keys(scope + "-e", 10));
			nextPolls.addAll(first);
			long start = System.nanoTime();
			long failedKeysBefore = lookups(scope, MicrometerFastPathListener.ERROR);
			long callsBefore = lookupCalls(scope);
			long rememberErrorsBefore = rememberErrors();
			try {
				kafka.sendAll(SINGLE, unreachable);
				awaitDone(kafka, scope, SINGLE);
				kafka.sendAll(SINGLE, nextPolls);
				awaitDone(kafka, scope, SINGLE);
				assertThat(this.faulting.suspended()).as("still unreachable when the stream was done").isTrue();
			}
			finally {
				redis.resume();
			}
			long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
			// a lookup that timed out, or a key remembered after its commit (which pauses the lookups after it)
			assertThat(lookups(scope, MicrometerFastPathListener.ERROR) - failedKeysBefore + rememberErrors()
					- rememberErrorsBefore).as("Redis timed out").isPositive();
			// round trips, not keys: a poll's keys are looked up in one call, which fails for all of them at once.
			// Every lookup call while Redis was away timed out (and the one of the suspending record's poll before
			// it did not); single records are remembered one key per call
			long timeouts = lookupCalls(scope) - callsBefore + rememberErrors() - rememberErrorsBefore;
			assertThat(timeouts).as("one timeout per pause, not one per record").isLessThanOrEqualTo(2 + elapsedMillis / 300);
			assertThat(lookups(scope, MicrometerFastPathListener.BYPASSED)).as("not asked while paused").isPositive();

			// Redis restarted (empty): the replay after it is claimed in the database, which teaches Redis again
			List<String> restarted = new ArrayList<>(List.of(scope + RESTART));
			restarted.addAll(keys(scope + "-d", 20));
			restarted.addAll(first);
			kafka.sendAll(SINGLE, restarted);
			awaitDone(kafka, scope, SINGLE);
			// Lettuce reconnects in the background: until it has, a replay's keys are not remembered; each replay after
			// that is taught to Redis by its database hits, and the next one is answered by Redis
			await().atMost(KafkaTestSupport.timeout()).pollInterval(java.time.Duration.ofMillis(200)).untilAsserted(() -> {
				long before = fastPathHits(scope);
				kafka.sendAll(SINGLE, first);
				awaitDone(kafka, scope, SINGLE);
				assertThat(fastPathHits(scope) - before).as("Redis answers again after its restart").isPositive();
			});
		}

		assertThat(this.ledger.doubleCredits(scope)).as("0 double effects").isEmpty();
		assertThat(this.ledger.rows(scope)).as("0 lost: every distinct key once").isEqualTo(40 + 1 + 20 + 1 + 30 + 10 + 1 + 20);
	}

	@Test
	void aBatchIsLookedUpInRedisAndOnlyTheUnknownKeysAreClaimed() throws Exception {
		String scope = this.run + "-batch";
		List<String> first = keys(scope + "-a", 50);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(BATCH, first);
			awaitDone(kafka, scope, BATCH);
			List<String> mixed = new ArrayList<>(first);
			mixed.addAll(keys(scope + "-b", 25));
			kafka.sendAll(BATCH, mixed);
			awaitDone(kafka, scope, BATCH);
		}

		assertThat(fastPathHits(scope)).isEqualTo(50);
		assertThat(count(scope, MicrometerClaimListener.CLAIMED)).isEqualTo(75);
		assertThat(this.ledger.rows(scope)).isEqualTo(75);
		assertThat(this.ledger.doubleCredits(scope)).isEmpty();
	}

	@Test
	void aClaimThatStoredOutputsIsAnsweredByTheDatabaseAndItsHitsSendThemAgain() throws Exception {
		String scope = this.run + "-sending";
		List<String> keys = keys(scope + "-a", 10);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(SENDING, keys);
			awaitDone(kafka, scope, SENDING);
			kafka.sendAll(SENDING, keys);
			awaitDone(kafka, scope, SENDING);
			// a hit found in the database is remembered after its commit, unless its key stored outputs
			kafka.sendAll(SENDING, keys);
			awaitDone(kafka, scope, SENDING);
		}

		assertThat(fastPathHits(scope)).as("a claim with stored outputs is not remembered by the fast path, "
				+ "neither when it is claimed nor when a hit finds it").isZero();
		assertThat(count(scope, MicrometerClaimListener.HIT)).as("the re-sent keys are hits").isEqualTo(20);
		assertThat(this.meters.find(OutputMeters.REPLAYED).tag("scope", scope).counter())
			.as("each hit sent its stored output again")
			.isNotNull()
			.extracting(Counter::count)
			.isEqualTo(20.0);
		assertThat(this.ledger.rows(scope)).isEqualTo(10);
	}

	@Test
	void aReplayedPollIsLookedUpInRedisOnceNotOncePerRecord() throws Exception {
		String scope = this.run + "-polled";
		List<String> keys = keys(scope + "-a", 60);
		MessageListenerContainer container = this.registry.getListenerContainer(PolledListener.ID);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(POLLED, keys);
			awaitDone(kafka, scope, POLLED);
			long lookups = lookupCalls(scope);

			// the replay is on the broker whole before the consumer polls again: one poll of 60 records
			container.pause();
			await().atMost(KafkaTestSupport.timeout()).until(container::isContainerPaused);
			kafka.sendAll(POLLED, keys);
			container.resume();
			awaitDone(kafka, scope, POLLED);

			assertThat(fastPathHits(scope)).as("every replayed record answered by Redis").isEqualTo(60);
			// one lookup per poll, not per record (60 before the prefetch): the consumer may still fetch the 60
			// records in two polls (a fetch answered while the last of them were being appended)
			assertThat(lookupCalls(scope) - lookups).as("one lookup per poll, not one per record").isBetween(1L, 2L);
		}
		assertThat(count(scope, MicrometerClaimListener.CLAIMED)).isEqualTo(60);
		assertThat(this.ledger.rows(scope)).isEqualTo(60);
	}

	@Autowired
	FaultingListeners faulting;

	@Autowired
	KafkaListenerEndpointRegistry registry;

	private static List<String> keys(String prefix, int count) {
		return IntStream.range(0, count).mapToObj((i) -> prefix + "-" + i).toList();
	}

	private static void awaitDone(KafkaTestSupport kafka, String group, String topic) {
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, topic) == 0);
	}

	private long fastPathHits(String scope) {
		return (long) this.meters.find(MicrometerClaimListener.HITS)
			.tag("scope", scope)
			.tag("found_in", MicrometerClaimListener.FAST_PATH)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private long lookups(String scope, String result) {
		return (long) this.meters.find(MicrometerFastPathListener.LOOKUPS)
			.tag("scope", scope)
			.tag("result", result)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	/** Round trips to Redis for lookups: a record's, a batch's or a poll's keys. */
	private long lookupCalls(String scope) {
		Timer timer = this.meters.find(MicrometerFastPathListener.LOOKUP_DURATION).tag("scope", scope).timer();
		return (timer != null) ? timer.count() : 0;
	}

	private long rememberErrors() {
		Counter errors = this.meters.find(MicrometerFastPathListener.REMEMBERED)
			.tag("result", MicrometerFastPathListener.ERROR)
			.counter();
		return (errors != null) ? (long) errors.count() : 0;
	}

	private long count(String scope, String outcome) {
		return ClaimMeters.count(this.meters, scope, outcome);
	}

	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class Listeners {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(@Value("${it.redis-port}") int port) {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		}

		@Bean
		SendingListener sendingListener(ItLedger ledger, KafkaTemplate<String, String> template,
				@Value("${it.run}") String run) {
			return new SendingListener(ledger, template, run);
		}

		@Bean
		PolledListener polledListener(ItLedger ledger, @Value("${it.run}") String run) {
			return new PolledListener(ledger, run);
		}

		@Bean
		FaultingListeners faultingListeners(ItLedger ledger, @Value("${it.run}") String run) {
			return new FaultingListeners(ledger, run);
		}

	}

	/** Credits each record and sends one output for it. */
	static class SendingListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> template;

		private final String run;

		SendingListener(ItLedger ledger, KafkaTemplate<String, String> template, String run) {
			this.ledger = ledger;
			this.template = template;
			this.run = run;
		}

		@KafkaListener(topics = SENDING, groupId = "${it.run}-sending")
		@IdempotentListener(scope = "${it.run}-sending")
		public void onRecord(ConsumerRecord<String, String> record) {
			this.ledger.credit(this.run + "-sending", record.key(), record.value());
			this.template.send(SENT, record.key(), "credited " + record.key());
		}

	}

	/** Credits each record; its key is read from the payload, the shape users write most. */
	static class PolledListener {

		static final String ID = "fast-path-polled";

		private final ItLedger ledger;

		private final String run;

		PolledListener(ItLedger ledger, String run) {
			this.ledger = ledger;
			this.run = run;
		}

		@KafkaListener(id = ID, topics = POLLED, groupId = "${it.run}-polled")
		@IdempotentListener(scope = "${it.run}-polled", key = "#payload.substring('payload-'.length())")
		public void onRecord(String payload) {
			String key = payload.substring("payload-".length());
			this.ledger.credit(this.run + "-polled", key, payload);
		}

	}

	/** Credits each record; the first delivery of a fault's key does that fault to Redis, in its transaction. */
	static class FaultingListeners {

		private final Set<String> done = ConcurrentHashMap.newKeySet();

		private final ItLedger ledger;

		private final String run;

		private volatile boolean suspended;

		FaultingListeners(ItLedger ledger, String run) {
			this.ledger = ledger;
			this.run = run;
		}

		/** Whether Redis was suspended (a method: the bean is a proxy). */
		public boolean suspended() {
			return this.suspended;
		}

		@KafkaListener(topics = SINGLE, groupId = "${it.run}-single")
		@IdempotentListener(scope = "${it.run}-single")
		public void onRecord(ConsumerRecord<String, String> record) throws Exception {
			String key = record.key();
			if (this.done.add(key)) {
				if (key.endsWith(FLUSH)) {
					assertThat(redis.command("FLUSHALL")).isEqualTo("+OK");
				}
				else if (key.endsWith(SUSPEND)) {
					redis.suspend();
					this.suspended = true;
				}
				else if (key.endsWith(RESTART)) {
					redis.restart();
				}
			}
			this.ledger.credit(this.run + "-single", key, record.value());
		}

		@KafkaListener(topics = BATCH, groupId = "${it.run}-batch", containerFactory = "batchFactory",
				properties = "max.poll.records=30")
		@IdempotentListener(scope = "${it.run}-batch")
		public void onBatch(List<ConsumerRecord<String, String>> records) {
			records.forEach((record) -> this.ledger.credit(this.run + "-batch", record.key(), record.value()));
		}

	}

}
