package dev.idempotent.kafka.startup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.WindowCheckMode;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.method.ListenerMethods;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;

/**
 * The startup check of the deduplication window: for each topic an {@link IdempotentListener} consumes, reads
 * {@code retention.ms} and {@code cleanup.policy} from the broker and compares them with the idempotency table's
 * retention period. A topic that keeps records longer than the table keeps keys (unlimited retention and
 * compaction count as forever) means that a replay from the earliest offset would process records whose keys
 * are gone again: {@link WindowCheckMode#WARN} logs one WARN per such topic with the numbers and the fix,
 * {@link WindowCheckMode#FAIL} stops the application. Runs once, after every listener bean is created and before
 * the listener containers start. Topics given by a pattern cannot be checked and are listed at INFO; a broker
 * that cannot be read is reported at WARN and does not stop the application.
 *
 * @since 0.1.0
 */
public final class RetentionWindowCheck implements SmartLifecycle {

	/** Before the listener containers, which start in {@link AbstractMessageListenerContainer#DEFAULT_PHASE}. */
	public static final int PHASE = AbstractMessageListenerContainer.DEFAULT_PHASE - 100;

	private static final Logger logger = LoggerFactory.getLogger(RetentionWindowCheck.class);

	private static final long TIMEOUT_MS = 10_000;

	private final ListenerMethods methods;

	private final Map<String, Object> adminConfig;

	private final Duration period;

	private final WindowCheckMode mode;

	private final Function<String, @Nullable Object> expressions;

	private volatile boolean running;

	/**
	 * Create the check.
	 * @param methods the resolved idempotent listener methods
	 * @param adminConfig the configuration of an Admin client on the listeners' cluster, e.g. the
	 * {@code KafkaAdmin} bean's
	 * @param period the idempotency table's retention period
	 * @param mode what to do when a topic keeps records longer
	 * @param expressions evaluates a topic attribute that holds a SpEL expression ({@code #{...}}) to a topic name,
	 * an array or a collection of them
	 */
	public RetentionWindowCheck(ListenerMethods methods, Map<String, Object> adminConfig, Duration period,
			WindowCheckMode mode, Function<String, @Nullable Object> expressions) {
		this.methods = methods;
		this.adminConfig = Map.copyOf(adminConfig);
		this.period = period;
		this.mode = mode;
		this.expressions = expressions;
	}

	/**
	 * Run the check as configured.
	 * @throws RetentionWindowException in {@link WindowCheckMode#FAIL} when a topic keeps records longer than the
	 * retention period
	 */
	@Override
	public void start() {
		this.running = true;
		if (this.mode == WindowCheckMode.NONE) {
			return;
		}
		List<String> problems = check().stream().map(this::problem).toList();
		if (this.mode == WindowCheckMode.FAIL && !problems.isEmpty()) {
			throw new RetentionWindowException(String.join("\n", problems)
					+ "\n(idempotent.retention.window-check=fail; set it to 'warn' to only log this)");
		}
		problems.forEach(logger::warn);
	}

	/**
	 * Read the retention of every topic of an idempotent listener and return those that keep records longer than
	 * the retention period, each once.
	 * @return the topics that outlive the window, never {@code null}; empty if the broker cannot be read
	 */
	public List<TopicRetention> check() {
		Set<String> topics = topics();
		if (topics.isEmpty()) {
			return List.of();
		}
		try (Admin admin = Admin.create(this.adminConfig)) {
			return read(admin, topics).stream().filter((topic) -> topic.keepsLongerThan(this.period)).toList();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			logger.warn("Could not read the retention of topics {} from the broker to compare it with "
					+ "idempotent.retention.period={}: {}", topics, this.period, ex.toString());
			return List.of();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return List.of();
		}
	}

	private Set<String> topics() {
		Set<String> topics = new LinkedHashSet<>();
		for (ListenerMethod method : this.methods.all()) {
			if (method.endpoint().topics().isEmpty()) {
				logger.info("The retention window of {} is not checked: it names no topic (a topic pattern?)", method);
			}
			for (String topic : method.endpoint().topics()) {
				topics.addAll(names(topic.contains("#{") ? this.expressions.apply(topic) : topic));
			}
		}
		return topics;
	}

	private static List<String> names(@Nullable Object value) {
		List<String> names = new ArrayList<>();
		if (value instanceof String name) {
			names.add(name);
		}
		else if (value instanceof Object[] array) {
			for (Object element : array) {
				names.addAll(names(element));
			}
		}
		else if (value instanceof Collection<?> collection) {
			collection.forEach((element) -> names.addAll(names(element)));
		}
		return names;
	}

	private static List<TopicRetention> read(Admin admin, Set<String> topics)
			throws InterruptedException, ExecutionException, TimeoutException {
		Map<String, ConfigResource> resources = new LinkedHashMap<>();
		topics.forEach((topic) -> resources.put(topic, new ConfigResource(ConfigResource.Type.TOPIC, topic)));
		Map<ConfigResource, KafkaFuture<Config>> configs = admin
			.describeConfigs(resources.values(), new DescribeConfigsOptions().timeoutMs((int) TIMEOUT_MS))
			.values();
		List<TopicRetention> retentions = new ArrayList<>();
		for (Map.Entry<String, ConfigResource> topic : resources.entrySet()) {
			try {
				retentions.add(TopicRetention.of(topic.getKey(),
						configs.get(topic.getValue()).get(TIMEOUT_MS, TimeUnit.MILLISECONDS)));
			}
			catch (ExecutionException ex) {
				if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
					throw ex;
				}
				logger.info("The retention window of topic '{}' is not checked: it does not exist (yet)", topic.getKey());
			}
		}
		return retentions;
	}

	private String problem(TopicRetention topic) {
		String fix = topic.keepsForever()
				? "keep keys as long as the topic keeps records (disable idempotent.retention), or give the topic a"
						+ " time-based retention.ms of at most " + this.period.toMillis()
				: "set idempotent.retention.period to at least " + Duration.ofMillis(topic.longestAgeMs())
						+ " (retention.ms + segment.ms: Kafka deletes a segment only when its newest record is older"
						+ " than retention.ms), or lower the topic's retention.ms + segment.ms to at most "
						+ this.period.toMillis();
		return "Topic '" + topic.topic() + "' of an @IdempotentListener keeps records " + topic.describe()
				+ ", longer than the idempotency table keeps keys (idempotent.retention.period=" + this.period
				+ "): a replay from the earliest offset would process records older than that again. Fix: " + fix + ".";
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Thrown at startup with {@link WindowCheckMode#FAIL} when a topic of an idempotent listener keeps records
	 * longer than the idempotency table keeps keys. The message names every such topic, with the numbers and the fix.
	 */
	public static final class RetentionWindowException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		RetentionWindowException(String message) {
			super(message);
		}

	}

}
