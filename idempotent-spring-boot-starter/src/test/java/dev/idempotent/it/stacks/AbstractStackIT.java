package dev.idempotent.it.stacks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotent.it.ClaimMeters;
import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.kafkaBootstrapServers;
import static org.awaitility.Awaitility.await;

/**
 * What every stacks test needs: a run id that makes consumer groups (and so scopes) unique per run, the claim
 * counters, the idempotency table's status of a key, the beans of {@link StackBeans}, and a reader of
 * dead-letter topics.
 */
abstract class AbstractStackIT {

	/** Makes groups (and so scopes) and business references unique per run: the databases keep rows between runs. */
	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	@Autowired
	MeterRegistry meters;

	@Autowired
	BeanFactory beans;

	/** On the business (primary) database. */
	@Autowired
	JdbcTemplate jdbc;

	/** The business table every stack application writes. */
	@Autowired
	StackPayments payments;

	/** The listener's calls per key. */
	@Autowired
	Attempts attempts;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	KafkaTestSupport kafka() {
		return new KafkaTestSupport(bootstrapServers());
	}

	String bootstrapServers() {
		return kafkaBootstrapServers(this.beans);
	}

	long hits(String scope) {
		return count(scope, MicrometerClaimListener.HIT);
	}

	long count(String scope, String outcome) {
		return ClaimMeters.count(this.meters, scope, outcome);
	}

	/** A claim counter summed over every scope that starts with {@code prefix}. */
	long countInScopesStartingWith(String prefix, String outcome) {
		return (long) this.meters.find(MicrometerClaimListener.CLAIMS)
			.tag("outcome", outcome)
			.counters()
			.stream()
			.filter((counter) -> String.valueOf(counter.getId().getTag("scope")).startsWith(prefix))
			.mapToDouble(Counter::count)
			.sum();
	}

	/** The status code of a key's claim row (0 PROCESSING, 1 SUCCEEDED, 2 FAILED), or null without a row. */
	@Nullable Integer status(String scope, String key) {
		List<Integer> statuses = this.jdbc.queryForList(
				"SELECT status FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?", Integer.class, scope, key);
		return statuses.isEmpty() ? null : statuses.get(0);
	}

	/** Every claim row of a key, whatever its scope. */
	List<Map<String, Object>> claimsOfKey(String key) {
		return this.jdbc.queryForList("SELECT scope, status FROM idempotent_claim WHERE idempotency_key = ?", key);
	}

	Consumer<String, String> deadLetterReader(String... topics) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(bootstrapServers(),
				RUN + "-dlt-reader-" + UUID.randomUUID());
		props.put("auto.offset.reset", "earliest");
		Consumer<String, String> consumer = new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(),
				new StringDeserializer())
			.createConsumer();
		consumer.subscribe(List.of(topics));
		return consumer;
	}

	/** Wait for the dead-lettered record that carried {@code key} in its idempotency-key header. */
	static ConsumerRecord<String, String> awaitDeadLetter(Consumer<String, String> reader, String key) {
		List<ConsumerRecord<String, String>> seen = new ArrayList<>();
		await().atMost(KafkaTestSupport.timeout()).until(() -> {
			KafkaTestUtils.getRecords(reader, Duration.ofMillis(200)).forEach(seen::add);
			return seen.stream().anyMatch((record) -> key.equals(header(record, IdempotencyHeaders.KEY)));
		});
		return seen.stream().filter((record) -> key.equals(header(record, IdempotencyHeaders.KEY))).findFirst().orElseThrow();
	}

	/** Wait for a record with that value. */
	static ConsumerRecord<String, String> awaitRecordWithValue(Consumer<String, String> reader, String value) {
		List<ConsumerRecord<String, String>> seen = new ArrayList<>();
		await().atMost(KafkaTestSupport.timeout()).until(() -> {
			KafkaTestUtils.getRecords(reader, Duration.ofMillis(200)).forEach(seen::add);
			return seen.stream().anyMatch((record) -> value.equals(record.value()));
		});
		return seen.stream().filter((record) -> value.equals(record.value())).findFirst().orElseThrow();
	}

	static @Nullable String header(ConsumerRecord<?, ?> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

}
