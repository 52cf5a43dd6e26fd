package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;

import dev.idempotent.kafka.IdempotencyHeaders;

import org.springframework.kafka.support.KafkaHeaders;

/**
 * Producing, topic creation and consumer lag against the broker a test started.
 */
public final class KafkaTestSupport implements AutoCloseable {

	private final String bootstrapServers;

	private final Admin admin;

	private final KafkaProducer<String, String> producer;

	public KafkaTestSupport(String bootstrapServers) {
		this.bootstrapServers = bootstrapServers;
		Properties adminProps = new Properties();
		adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
		this.admin = Admin.create(adminProps);
		Properties producerProps = new Properties();
		producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
		producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
		producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 5);
		this.producer = new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer());
	}

	/**
	 * The properties of a consumer in the given group that reads from the earliest offset and commits nothing by
	 * itself, with spring-kafka-test's default deserializers (integer keys, string values).
	 */
	public static Map<String, Object> consumerProps(String bootstrapServers, String group) {
		Map<String, Object> props = new HashMap<>();
		props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
		props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
		props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 60000);
		props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, IntegerDeserializer.class);
		props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		return props;
	}

	public String bootstrapServers() {
		return this.bootstrapServers;
	}

	/**
	 * Create topics with the given partition count and wait until every partition has a leader: producing to a
	 * partition whose leader is not elected yet fails with NOT_LEADER_OR_FOLLOWER, and an idempotent producer's
	 * retried batches can then be refused as out of order.
	 */
	public void createTopics(int partitions, String... topics) throws Exception {
		createTopics(partitions, (short) 1, topics);
	}

	/** Like {@link #createTopics(int, String...)}, each partition replicated to {@code replicas} brokers. */
	public void createTopics(int partitions, short replicas, String... topics) throws Exception {
		this.admin.createTopics(java.util.Arrays.stream(topics).map((t) -> new NewTopic(t, partitions, replicas)).toList())
			.all()
			.get(30, TimeUnit.SECONDS);
		org.awaitility.Awaitility.await().atMost(timeout()).ignoreExceptions().until(() -> this.admin
			.describeTopics(List.of(topics))
			.allTopicNames()
			.get(10, TimeUnit.SECONDS)
			.values()
			.stream()
			.allMatch((topic) -> topic.partitions().size() == partitions
					&& topic.partitions().stream().allMatch((partition) -> partition.leader() != null
							&& partition.leader().id() >= 0)));
	}

	/** Send a record with the idempotency key header (none if {@code key} is null) and wait for its ack. */
	public void send(String topic, @Nullable String key, String payload) throws Exception {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, payload);
		if (key != null) {
			record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
		}
		this.producer.send(record).get(30, TimeUnit.SECONDS);
	}

	/**
	 * Send a request with the idempotency key header and, unless {@code replyTopic} is null, spring-kafka's reply topic
	 * header, and wait for its ack.
	 */
	public void send(String topic, String key, String payload, @Nullable String replyTopic) throws Exception {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, payload);
		record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
		if (replyTopic != null) {
			record.headers().add(KafkaHeaders.REPLY_TOPIC, replyTopic.getBytes(StandardCharsets.UTF_8));
		}
		this.producer.send(record).get(30, TimeUnit.SECONDS);
	}

	/** Send a record with the idempotency key header and a given timestamp, and wait for its ack. */
	public void send(String topic, String key, String payload, Instant timestamp) throws Exception {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, null, timestamp.toEpochMilli(), key, payload);
		record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
		this.producer.send(record).get(30, TimeUnit.SECONDS);
	}

	/** Send many records without waiting for each, then flush. */
	public void sendAll(String topic, List<String> keys) {
		sendAll(topic, keys, (key) -> "payload-" + key);
	}

	/** Send many records without waiting for each, then flush, so that they usually reach a consumer in one poll. */
	public void sendAll(String topic, List<String> keys, java.util.function.UnaryOperator<String> payload) {
		for (String key : keys) {
			ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, payload.apply(key));
			record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
			this.producer.send(record);
		}
		this.producer.flush();
	}

	/** The sum over the topic's partitions of end offset minus the group's committed offset. */
	public long lag(String group, String topic) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = this.admin.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get(30, TimeUnit.SECONDS);
		int partitions = this.admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
		Map<TopicPartition, OffsetSpec> request = java.util.stream.IntStream.range(0, partitions)
			.boxed()
			.collect(Collectors.toMap((p) -> new TopicPartition(topic, p), (p) -> OffsetSpec.latest()));
		return this.admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).entrySet().stream().mapToLong((end) -> {
			OffsetAndMetadata offset = committed.get(end.getKey());
			return end.getValue().offset() - ((offset != null) ? offset.offset() : 0);
		}).sum();
	}

	/** The committed offset of a group on one partition, or -1 if none. */
	public long committedOffset(String group, TopicPartition partition) throws Exception {
		OffsetAndMetadata offset = this.admin.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get(30, TimeUnit.SECONDS)
			.get(partition);
		return (offset != null) ? offset.offset() : -1;
	}

	/** How long a test waits for the broker and consumers: 60 s, or {@code -Dit.timeout-seconds} on a loaded machine. */
	public static Duration timeout() {
		return Duration.ofSeconds(Long.getLong("it.timeout-seconds", 60));
	}

	@Override
	public void close() {
		this.producer.close(Duration.ofSeconds(5));
		this.admin.close(Duration.ofSeconds(5));
	}

}
