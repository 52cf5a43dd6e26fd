package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Runs every variant, one after the other, on one in-process Kafka broker, the MariaDB (or MySQL) database of
 * {@code --db-url}, Redis, and the same data set: {@code --records} orders, {@code --duplicates} of them sent a
 * second time right after the first on another partition, so that two consumer threads see the pair at once.
 * Prints a Markdown table and writes it to {@code --output}.
 * <pre>
 * java -jar idempotent-benchmarks/target/idempotent-benchmarks-0.1.0-SNAPSHOT.jar --records=20000
 * </pre>
 */
public final class Benchmark {

	/** The benchmark's idempotency table. */
	static final String CLAIM_TABLE = "bench_claim";

	/** Every table the benchmark writes; each round starts without them, so rounds measure the same table sizes. */
	private static final List<String> TABLES = List.of(CLAIM_TABLE, CLAIM_TABLE + "_offset", "bench_ledger",
			"bench_outbox", "bench_seen", Variants.METADATA_TABLE);

	private Benchmark() {
	}

	public static void main(String[] args) throws Exception {
		Settings settings = Settings.parse(args);
		String report = run(settings);
		System.out.println(report);
		Path parent = settings.output().toAbsolutePath().getParent();
		if (parent != null) {
			Files.createDirectories(parent);
		}
		Files.writeString(settings.output(), report, StandardCharsets.UTF_8);
		System.out.println("Written to " + settings.output().toAbsolutePath());
		System.exit(0);
	}

	/** Run the benchmark and return the report. */
	static String run(Settings settings) throws Exception {
		dropTables(settings);
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, settings.partitions());
		broker.afterPropertiesSet();
		try {
			String run = UUID.randomUUID().toString().substring(0, 8);
			if (settings.warmup() > 0) {
				// every variant once on a small data set first, so that no variant pays the JVM's warm-up
				Settings warmup = settings.withRecords(settings.warmup());
				for (Variant variant : settings.variants()) {
					runVariant(variant, warmup, broker, "warmup-" + run);
				}
			}
			// rounds interleave the variants, so that a slow spell of the machine does not hit one variant only
			Map<Variant, List<Result>> results = new java.util.LinkedHashMap<>();
			for (int round = 1; round <= settings.rounds(); round++) {
				dropTables(settings); // every round measures the same, empty tables
				for (Variant variant : settings.variants()) {
					results.computeIfAbsent(variant, (v) -> new ArrayList<>())
						.add(runVariant(variant, settings, broker, run + "-" + round));
				}
			}
			return Report.markdown(settings, results);
		}
		finally {
			broker.destroy();
		}
	}

	private static Result runVariant(Variant variant, Settings settings, EmbeddedKafkaKraftBroker broker, String run)
			throws Exception {
		String brokers = broker.getBrokersAsString();
		String topic = "bench-" + variant.name().toLowerCase().replace('_', '-') + "-" + run;
		broker.addTopics(new org.apache.kafka.clients.admin.NewTopic(topic, settings.partitions(), (short) 1),
				new org.apache.kafka.clients.admin.NewTopic(topic + "-out", settings.partitions(), (short) 1));
		awaitLeaders(brokers, topic);
		awaitLeaders(brokers, topic + "-out");
		String group = variant.name().toLowerCase() + "-" + run;
		int seeded = ReplayVariants.replays(variant) ? seed(variant, settings, brokers, topic, group) : 0;
		String dbUrl = variant.driverSettings
				? settings.dbUrl() + (settings.dbUrl().contains("?") ? "&" : "?") + Variant.DRIVER_URL_PARAMETERS
				: settings.dbUrl();
		List<String> arguments = new ArrayList<>(List.of("--spring.main.banner-mode=off",
				"--spring.kafka.bootstrap-servers=" + brokers, "--spring.datasource.url=" + dbUrl,
				"--spring.datasource.username=" + settings.dbUser(), "--spring.datasource.password=" + settings.dbPassword(),
				"--spring.datasource.hikari.maximum-pool-size=" + (settings.concurrency() + 2),
				"--spring.kafka.consumer.auto-offset-reset=earliest",
				"--spring.kafka.consumer.key-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
				"--spring.kafka.consumer.value-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
				"--spring.kafka.listener.concurrency=" + settings.concurrency(), "--idempotent.jdbc.initialize-schema=always",
				"--idempotent.table-name=" + CLAIM_TABLE,
				"--bench.variant=" + variant.name().toLowerCase(), "--bench.topic=" + topic, "--bench.group=" + group,
				"--bench.batch-size=" + Math.max(1, variant.batchSize), "--logging.level.root=" + System.getProperty("bench.log", "WARN"),
				"--logging.level.dev.idempotent.hits=WARN", "--spring.jmx.enabled=false"));
		arguments.addAll(replayArguments(variant, group));
		if (seeded > 0) {
			arguments.add("--spring.kafka.listener.auto-startup=false");
		}
		if (variant.driverSettings) {
			arguments.add("--spring.datasource.hikari.auto-commit=false");
		}
		arguments.addAll(variant.arguments);
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchApp.class, variant.configuration)
			.web(WebApplicationType.NONE)
			.run(arguments.toArray(String[]::new))) {
			// the clock starts once every consumer has its partitions and the data is in the topic: the group's
			// joining and rebalancing is start-up, not throughput
			Collection<MessageListenerContainer> containers = context.getBean(KafkaListenerEndpointRegistry.class)
				.getListenerContainers();
			if (seeded > 0) {
				// the data is in the topic already: the containers start paused (auto-startup off)
				containers.forEach(MessageListenerContainer::pause);
				containers.forEach(MessageListenerContainer::start);
			}
			awaitAssignment(containers, settings);
			containers.forEach(MessageListenerContainer::pause);
			awaitUntil("paused", () -> containers.stream().allMatch(MessageListenerContainer::isContainerPaused));
			int total = (seeded > 0) ? seeded : produce(brokers, topic, settings);
			StatementCounter counter = context.getBean(StatementCounter.class);
			counter.reset();
			CpuMeter cpu = new CpuMeter();
			containers.forEach(MessageListenerContainer::resume);
			Deliveries deliveries = context.getBean(Deliveries.class);
			try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
				// done when every record was delivered and every offset committed (after its database commit)
				awaitUntil(variant + " to deliver and commit " + total + " records",
						() -> deliveries.count() >= total && lag(admin, group, topic) == 0);
			}
			CpuMeter.Usage usage = cpu.stop();
			deliveries.delivered(0);
			BenchLedger ledger = context.getBean(BenchLedger.class);
			Timer latency = latency(context.getBean(MeterRegistry.class), variant);
			System.gc();
			long heapMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / (1024 * 1024);
			long statements = counter.statements();
			long commits = counter.commits();
			return new Result(variant, total, deliveries.elapsed(), percentile(latency, 0.5), percentile(latency, 0.99),
					ledger.duplicatesTakenEffect(), settings.records() - ledger.distinctOrders(), heapMb,
					(double) statements / total, (double) commits / total, usage);
		}
	}

	/**
	 * Produce the data set of a replay variant and process it once, in batches of 500 under the replay's scope and
	 * with the replay's fast path setting (so Redis learns the keys as it would in production), not measured.
	 * @return the number of records produced
	 */
	private static int seed(Variant variant, Settings settings, String brokers, String topic, String group)
			throws Exception {
		int total = produce(brokers, topic, settings);
		List<String> arguments = new ArrayList<>(List.of("--spring.main.banner-mode=off",
				"--spring.kafka.bootstrap-servers=" + brokers, "--spring.datasource.url=" + settings.dbUrl(),
				"--spring.datasource.username=" + settings.dbUser(), "--spring.datasource.password=" + settings.dbPassword(),
				"--spring.datasource.hikari.maximum-pool-size=" + (settings.concurrency() + 2),
				"--spring.kafka.consumer.auto-offset-reset=earliest",
				"--spring.kafka.consumer.key-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
				"--spring.kafka.consumer.value-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
				"--spring.kafka.listener.concurrency=" + settings.concurrency(), "--idempotent.jdbc.initialize-schema=always",
				"--idempotent.table-name=" + CLAIM_TABLE, "--bench.topic=" + topic, "--bench.group=" + group,
				"--logging.level.root=" + System.getProperty("bench.log", "WARN"), "--spring.jmx.enabled=false"));
		arguments.addAll(replayArguments(variant, group));
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchApp.class,
				ReplayVariants.Seed.class)
			.web(WebApplicationType.NONE)
			.run(arguments.toArray(String[]::new));
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
			awaitUntil("the seed of " + variant + " to process " + total + " records",
					() -> lag(admin, group + "-seed", topic) == 0);
		}
		return total;
	}

	/** The scope a replay variant shares with its seed, and its fast path setting. */
	private static List<String> replayArguments(Variant variant, String group) {
		if (!ReplayVariants.replays(variant)) {
			return List.of();
		}
		return List.of("--bench.scope=replay-" + group,
				"--idempotent.fast-path.redis.enabled=" + ReplayVariants.fastPath(variant),
				"--idempotent.fast-path.redis.ttl=1h");
	}

	private static void dropTables(Settings settings) throws java.sql.SQLException {
		try (java.sql.Connection connection = java.sql.DriverManager.getConnection(settings.dbUrl(), settings.dbUser(),
				settings.dbPassword()); java.sql.Statement statement = connection.createStatement()) {
			for (String table : TABLES) {
				statement.execute("DROP TABLE IF EXISTS " + table);
			}
		}
	}

	/**
	 * Wait until every partition of a new topic has a leader: an idempotent producer whose first sends meet
	 * NOT_LEADER_OR_FOLLOWER can then be refused as out of order for a long time.
	 */
	private static void awaitLeaders(String brokers, String topic) throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
			awaitUntil("a leader for every partition of " + topic, () -> admin.describeTopics(List.of(topic))
				.allTopicNames()
				.get(10, TimeUnit.SECONDS)
				.get(topic)
				.partitions()
				.stream()
				.allMatch((partition) -> partition.leader() != null && partition.leader().id() >= 0));
		}
	}

	/** Wait until the group is stable: every partition assigned, and every consumer thread holding some. */
	private static void awaitAssignment(Collection<MessageListenerContainer> containers, Settings settings)
			throws Exception {
		int consumers = Math.min(settings.concurrency(), settings.partitions());
		awaitUntil("every partition assigned to " + consumers + " consumers", () -> {
			int assigned = 0;
			int holding = 0;
			for (MessageListenerContainer container : containers) {
				for (MessageListenerContainer child : (container instanceof ConcurrentMessageListenerContainer<?, ?> concurrent)
						? concurrent.getContainers() : List.of(container)) {
					Collection<TopicPartition> partitions = child.getAssignedPartitions();
					assigned += (partitions != null) ? partitions.size() : 0;
					holding += (partitions != null && !partitions.isEmpty()) ? 1 : 0;
				}
			}
			return assigned == settings.partitions() && holding == consumers;
		});
	}

	/**
	 * Poll a condition every 20 ms for up to 10 minutes: the broker and the containers offer no event to wait on
	 * from here. An exception of the condition ends the wait.
	 */
	private static void awaitUntil(String what, Callable<Boolean> condition) {
		Awaitility.await(what)
			.atMost(Duration.ofMinutes(10))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(20))
			.until(condition);
	}

	private static long lag(Admin admin, String group, String topic) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get(30, TimeUnit.SECONDS);
		int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
		Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
		for (int p = 0; p < partitions; p++) {
			latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
		}
		long lag = 0;
		for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : admin.listOffsets(latest)
			.all()
			.get(30, TimeUnit.SECONDS)
			.entrySet()) {
			OffsetAndMetadata offset = committed.get(end.getKey());
			lag += end.getValue().offset() - ((offset != null) ? offset.offset() : 0);
		}
		return lag;
	}

	private static Timer latency(MeterRegistry registry, Variant variant) {
		if (variant.library) {
			// a replay claims nothing: its check is the hit's
			return registry.find(MicrometerClaimListener.CLAIM_DURATION)
				.tag("outcome", ReplayVariants.replays(variant) ? MicrometerClaimListener.HIT : MicrometerClaimListener.CLAIMED)
				.timer();
		}
		return registry.find(BenchApp.CHECK).timer();
	}

	private static Duration percentile(Timer timer, double percentile) {
		if (timer == null) {
			return Duration.ZERO;
		}
		return Arrays.stream(timer.takeSnapshot().percentileValues())
			.filter((value) -> value.percentile() == percentile)
			.findFirst()
			.map((ValueAtPercentile value) -> Duration.ofNanos((long) value.value(TimeUnit.NANOSECONDS)))
			.orElse(Duration.ZERO);
	}

	/** Produce the data set; returns the number of records sent. */
	private static int produce(String brokers, String topic, Settings settings) throws Exception {
		Properties props = new Properties();
		props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
		props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
		props.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
		Random random = new Random(42);
		int sent = 0;
		try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
				new StringSerializer())) {
			for (int i = 0; i < settings.records(); i++) {
				String order = "ORD-" + i;
				String value = order + "|" + (1000 + random.nextInt(90_000));
				producer.send(record(topic, order, order, value));
				sent++;
				if (random.nextDouble() < settings.duplicates()) {
					producer.send(record(topic, order + "#resend", order, value));
					sent++;
				}
			}
			producer.flush();
		}
		return sent;
	}

	private static ProducerRecord<String, String> record(String topic, String recordKey, String idempotencyKey,
			String value) {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, recordKey, value);
		record.headers().add("idempotency-key", idempotencyKey.getBytes(StandardCharsets.UTF_8));
		return record;
	}

	/**
	 * The run's settings.
	 */
	record Settings(int records, int warmup, int rounds, double duplicates, int partitions, int concurrency,
			List<Variant> variants, String dbUrl, String dbUser, String dbPassword, Path output) {

		Settings withRecords(int records) {
			return new Settings(records, 0, 1, this.duplicates, this.partitions, this.concurrency, this.variants,
					this.dbUrl, this.dbUser, this.dbPassword, this.output);
		}

		static Settings parse(String... args) {
			Map<String, String> options = Options.parse(args);
			List<Variant> variants = options.containsKey("variants") ? Arrays.stream(options.get("variants").split(","))
				.map((name) -> Variant.valueOf(name.trim().toUpperCase()))
				.toList() : List.of(Variant.values());
			return new Settings(Integer.parseInt(options.getOrDefault("records", "20000")),
					Integer.parseInt(options.getOrDefault("warmup", "2000")),
					Integer.parseInt(options.getOrDefault("rounds", "5")),
					Double.parseDouble(options.getOrDefault("duplicates", "0.05")),
					Integer.parseInt(options.getOrDefault("partitions", "4")),
					Integer.parseInt(options.getOrDefault("concurrency", "2")), variants,
					options.getOrDefault("db-url", "jdbc:mysql://127.0.0.1:3306/test?rewriteBatchedStatements=true"),
					options.getOrDefault("db-user", "root"), options.getOrDefault("db-password", ""),
					Path.of(options.getOrDefault("output", "target/benchmark-results.md")));
		}

	}

	/**
	 * One variant's numbers; {@code cpu} is the CPU time spent while it was measured ({@link CpuMeter}).
	 */
	record Result(Variant variant, int records, Duration elapsed, Duration p50, Duration p99, long duplicatesTakenEffect,
			long missing, long heapMb, double statementsPerRecord, double commitsPerRecord, CpuMeter.Usage cpu) {

		double recordsPerSecond() {
			return this.records / (this.elapsed.toNanos() / 1e9);
		}

	}

}
