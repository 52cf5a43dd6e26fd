package dev.idempotent.kafka.startup;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.TopicConfig;

/**
 * How long a topic keeps its records, as read from the broker: its {@code retention.ms} and
 * {@code cleanup.policy}. A topic keeps records forever when {@code retention.ms} is -1 or when it is compacted
 * without deletion ({@code cleanup.policy=compact}): the latest record of each key then stays. With
 * {@code compact,delete}, records older than {@code retention.ms} are deleted. {@code retention.bytes} may delete
 * records earlier; it is not taken into account (the check stays on the safe side).
 * <p>Kafka deletes whole log segments, and a segment only once its newest record is older than
 * {@code retention.ms}; a segment is rolled after {@code segment.ms} at the latest. A record can therefore still be
 * read until it is {@code retention.ms + segment.ms} old: that sum is what the idempotency table's period must cover.
 *
 * @param topic the topic's name
 * @param retentionMs the topic's {@code retention.ms}; -1 for unlimited
 * @param segmentMs the topic's {@code segment.ms} (the longest time before its active segment is rolled)
 * @param cleanupPolicy the topic's {@code cleanup.policy}, e.g. {@code delete} or {@code compact,delete}
 * @since 0.1.0
 */
public record TopicRetention(String topic, long retentionMs, long segmentMs, String cleanupPolicy) {

	/**
	 * Read a topic's retention from its configuration as described by the broker.
	 * @param topic the topic
	 * @param config its configuration, from {@code Admin.describeConfigs}
	 * @return the retention, never {@code null}
	 */
	static TopicRetention of(String topic, Config config) {
		return new TopicRetention(topic, Long.parseLong(value(config, TopicConfig.RETENTION_MS_CONFIG, "604800000")),
				Long.parseLong(value(config, TopicConfig.SEGMENT_MS_CONFIG, "604800000")),
				value(config, TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE));
	}

	/**
	 * Tell whether records are kept forever: unlimited retention, or compaction without deletion.
	 * @return {@code true} if no record is ever deleted for its age
	 */
	public boolean keepsForever() {
		Set<String> policies = Arrays.stream(this.cleanupPolicy.split(","))
			.map((policy) -> policy.trim().toLowerCase(Locale.ROOT))
			.collect(Collectors.toSet());
		return this.retentionMs < 0 || !policies.contains(TopicConfig.CLEANUP_POLICY_DELETE);
	}

	/**
	 * Return the age up to which a record may still be read: {@code retention.ms + segment.ms}.
	 * @return the longest age in milliseconds; meaningless when {@link #keepsForever()}
	 */
	public long longestAgeMs() {
		return this.retentionMs + Math.max(0, this.segmentMs);
	}

	/**
	 * Tell whether the topic keeps records longer than a period.
	 * @param period the period, e.g. the idempotency table's retention period
	 * @return {@code true} if a record older than the period may still be read from the topic
	 */
	public boolean keepsLongerThan(Duration period) {
		return keepsForever() || longestAgeMs() > period.toMillis();
	}

	/**
	 * Describe how long the topic keeps records, for a log line.
	 * @return e.g. {@code "forever (retention.ms=-1, segment.ms=604800000, cleanup.policy=delete)"} or
	 * {@code "up to PT888H (retention.ms=2592000000, segment.ms=604800000, cleanup.policy=delete)"}
	 */
	public String describe() {
		String settings = "(retention.ms=" + this.retentionMs + ", segment.ms=" + this.segmentMs + ", cleanup.policy="
				+ this.cleanupPolicy + ")";
		return (keepsForever() ? "forever " : "up to " + Duration.ofMillis(longestAgeMs()) + " ") + settings;
	}

	private static String value(Config config, String name, String fallback) {
		ConfigEntry entry = config.get(name);
		return (entry != null && entry.value() != null) ? entry.value() : fallback;
	}

}
