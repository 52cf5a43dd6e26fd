package dev.idempotent.it;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.idempotent.autoconfigure.IdempotentAutoConfiguration;
import dev.idempotent.autoconfigure.IdempotentRetentionAutoConfiguration;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.startup.RetentionWindowCheck;
import dev.idempotent.kafka.startup.TopicRetention;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup check of the deduplication window against a real broker: topics with a retention shorter than the
 * idempotency table's period pass; longer, unlimited and compacted ones are reported once each (warn) or stop the
 * application (fail). Topics come from the listeners' annotations, with placeholders and SpEL resolved.
 */
@EmbeddedKafka(partitions = 1)
@ExtendWith(OutputCaptureExtension.class)
class RetentionWindowCheckIT {

	static final String SHORT = "window.short";

	static final String LONG = "window.long";

	static final String FOREVER = "window.forever";

	static final String COMPACTED = "window.compacted";

	static final String COMPACT_DELETE = "window.compact-delete";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class, IdempotentRetentionAutoConfiguration.class))
		.withUserConfiguration(WindowListeners.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:window;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"idempotent.retention.enabled=true", "idempotent.retention.period=7d",
				"idempotent.retention.initial-delay=1h", "it.forever-topic=" + FOREVER);

	@Test
	void topicsKeepingRecordsLongerThanTheTableKeepsKeysAreReportedOnceEach(EmbeddedKafkaBroker broker,
			CapturedOutput output) throws Exception {
		createTopics(broker);
		this.runner.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RetentionWindowCheck.class).check()).extracting(TopicRetention::topic)
				.containsExactlyInAnyOrder(LONG, FOREVER, COMPACTED);
			assertThat(output.toString().split("Topic '" + LONG + "' of an @IdempotentListener", -1))
				.as("one WARN for a topic named by two listeners")
				.hasSize(2);
			assertThat(output).contains("WARN")
				.contains("Topic '" + LONG + "' of an @IdempotentListener keeps records up to PT888H (retention.ms="
						+ "2592000000, segment.ms=604800000, cleanup.policy=delete), longer than the idempotency table"
						+ " keeps keys (idempotent.retention.period=PT168H): a replay from the earliest offset would"
						+ " process records older than that again. Fix: set idempotent.retention.period to at least"
						+ " PT888H (retention.ms + segment.ms")
				.contains("Topic '" + FOREVER + "' of an @IdempotentListener keeps records forever (retention.ms=-1")
				.contains("Topic '" + COMPACTED + "' of an @IdempotentListener keeps records forever (retention.ms=")
				.doesNotContain("Topic '" + SHORT + "'")
				.doesNotContain("Topic '" + COMPACT_DELETE + "'");
		});
	}

	@Test
	void theCheckCanStopTheApplication(EmbeddedKafkaBroker broker) throws Exception {
		createTopics(broker);
		this.runner
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"idempotent.retention.window-check=fail")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(RetentionWindowCheck.RetentionWindowException.class)
				.hasMessageContaining("Topic '" + LONG + "'")
				.hasMessageContaining("Topic '" + FOREVER + "'")
				.hasMessageContaining("Topic '" + COMPACTED + "'")
				.hasMessageNotContaining("Topic '" + SHORT + "'")
				.hasMessageContaining("idempotent.retention.window-check=fail"));
	}

	@Test
	void aPeriodCoveringEveryFiniteTopicOnlyReportsTheEndlessOnes(EmbeddedKafkaBroker broker) throws Exception {
		createTopics(broker);
		this.runner
			.withPropertyValues("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"idempotent.retention.period=38d", "idempotent.retention.window-check=none")
			.run((context) -> assertThat(context.getBean(RetentionWindowCheck.class).check())
				.extracting(TopicRetention::topic)
				.containsExactlyInAnyOrder(FOREVER, COMPACTED));
	}

	private static void createTopics(EmbeddedKafkaBroker broker) throws Exception {
		Properties props = new Properties();
		props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString());
		try (Admin admin = Admin.create(props)) {
			Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
			List<NewTopic> topics = List.of(topic(SHORT, Map.of("retention.ms", "3600000", "segment.ms", "3600000")),
					topic(LONG, Map.of("retention.ms", "2592000000")), topic(FOREVER, Map.of("retention.ms", "-1")),
					topic(COMPACTED, Map.of("cleanup.policy", "compact")),
					topic(COMPACT_DELETE, Map.of("cleanup.policy", "compact,delete", "retention.ms", "3600000",
							"segment.ms", "3600000")));
			List<NewTopic> missing = topics.stream().filter((topic) -> !existing.contains(topic.name())).toList();
			if (!missing.isEmpty()) {
				admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
			}
		}
	}

	private static NewTopic topic(String name, Map<String, String> configs) {
		return new NewTopic(name, 1, (short) 1).configs(configs);
	}

	/** Two listeners that never start; between them they name every topic, one of them twice. */
	static class WindowListeners {

		@KafkaListener(id = "window-a", topics = { SHORT, LONG }, groupId = "window", autoStartup = "false")
		@IdempotentListener(scope = "window-a")
		public void first(String payload) {
		}

		@KafkaListener(id = "window-b", topics = { "${it.forever-topic}", "#{'" + COMPACTED + "'}", LONG,
				COMPACT_DELETE }, groupId = "window", autoStartup = "false")
		@IdempotentListener(scope = "window-b")
		public void second(String payload) {
		}

	}

}
