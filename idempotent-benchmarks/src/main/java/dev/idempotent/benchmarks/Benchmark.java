package dev.idempotent.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
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

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
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
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, settings.partitions());
		broker.afterPropertiesSet();
		try {
			String run = UUID.randomUUID().toString().substring(0, 8);
			List<Result> results = new ArrayList<>();
			for (Variant variant : settings.variants()) {
				String topic = "bench-" + variant.name().toLowerCase().replace('_', '-') + "-" + run;
				broker.addTopics(new org.apache.kafka.clients.admin.NewTopic(topic, settings.partitions(), (short) 1));
				awaitLeaders(broker.getBrokersAsString(), topic);
				int total = produce(broker.getBrokersAsString(), topic, settings);
				results.add(runVariant(variant, settings, broker.getBrokersAsString(), topic, run, total));
			}
			return Report.markdown(settings, results);
		}
		finally {
			broker.destroy();
		}
	}

	private static Result runVariant(Variant variant, Settings settings, String brokers, String topic, String run,
			int total) throws Exception {
		String group = variant.name().toLowerCase() + "-" + run;
		List<String> arguments = new ArrayList<>(List.of("--spring.main.banner-mode=off",
				"--spring.kafka.bootstrap-servers=" + brokers, "--spring.datasource.url=" + settings.dbUrl(),
				"--spring.datasource.username=" + settings.dbUser(), "--spring.datasource.password=" + settings.dbPassword(),
				"--spring.datasource.hikari.maximum-pool-size=" + (settings.concurrency() + 2),
				"--spring.kafka.consumer.auto-offset-reset=earliest",
				"--spring.kafka.consumer.key-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
				"--spring.kafka.consumer.value-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
				"--spring.kafka.listener.concurrency=" + settings.concurrency(), "--idempotent.jdbc.initialize-schema=always",
				"--bench.variant=" + variant.name().toLowerCase(), "--bench.topic=" + topic, "--bench.group=" + group,
				"--bench.batch-size=" + Math.max(1, variant.batchSize), "--logging.level.root=" + System.getProperty("bench.log", "WARN"),
				"--logging.level.dev.idempotent.hits=WARN", "--spring.jmx.enabled=false"));
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchApp.class, variant.configuration)
			.web(WebApplicationType.NONE)
			.run(arguments.toArray(String[]::new))) {
			Deliveries deliveries = context.getBean(Deliveries.class);
			long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
			try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
				// done when every record was delivered and every offset committed (after its database commit);
				// polled every 20 ms: there is no broker event to wait on
				while (deliveries.count() < total || lag(admin, group, topic) > 0) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException(variant + " delivered " + deliveries.count() + " of " + total);
					}
					Thread.sleep(20);
				}
			}
			deliveries.delivered(0);
			BenchLedger ledger = context.getBean(BenchLedger.class);
			Timer latency = latency(context.getBean(MeterRegistry.class), variant);
			System.gc();
			long heapMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / (1024 * 1024);
			return new Result(variant, total, deliveries.elapsed(), percentile(latency, 0.5), percentile(latency, 0.99),
					ledger.duplicatesTakenEffect(), settings.records() - ledger.distinctOrders(), heapMb);
		}
	}

	/**
	 * Wait until every partition of a new topic has a leader: an idempotent producer whose first sends meet
	 * NOT_LEADER_OR_FOLLOWER can then be refused as out of order for a long time.
	 */
	private static void awaitLeaders(String brokers, String topic) throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (!admin.describeTopics(List.of(topic))
				.allTopicNames()
				.get(10, TimeUnit.SECONDS)
				.get(topic)
				.partitions()
				.stream()
				.allMatch((partition) -> partition.leader() != null && partition.leader().id() >= 0)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("No leader for every partition of " + topic);
				}
				Thread.sleep(20);
			}
		}
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
			return registry.find(MicrometerClaimListener.CLAIM_DURATION)
				.tag("outcome", MicrometerClaimListener.CLAIMED)
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
	record Settings(int records, double duplicates, int partitions, int concurrency, List<Variant> variants,
			String dbUrl, String dbUser, String dbPassword, Path output) {

		static Settings parse(String... args) {
			Map<String, String> options = new java.util.HashMap<>();
			for (String arg : args) {
				if (arg.startsWith("--") && arg.contains("=")) {
					options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
				}
			}
			List<Variant> variants = options.containsKey("variants") ? Arrays.stream(options.get("variants").split(","))
				.map((name) -> Variant.valueOf(name.trim().toUpperCase()))
				.toList() : List.of(Variant.values());
			return new Settings(Integer.parseInt(options.getOrDefault("records", "20000")),
					Double.parseDouble(options.getOrDefault("duplicates", "0.05")),
					Integer.parseInt(options.getOrDefault("partitions", "4")),
					Integer.parseInt(options.getOrDefault("concurrency", "2")), variants,
					options.getOrDefault("db-url", "jdbc:mysql://127.0.0.1:3306/test"),
					options.getOrDefault("db-user", "root"), options.getOrDefault("db-password", ""),
					Path.of(options.getOrDefault("output", "target/benchmark-results.md")));
		}

	}

	/**
	 * One variant's numbers.
	 */
	record Result(Variant variant, int records, Duration elapsed, Duration p50, Duration p99, long duplicatesTakenEffect,
			long missing, long heapMb) {

		double recordsPerSecond() {
			return this.records / (this.elapsed.toNanos() / 1e9);
		}

	}


}
