package dev.idempotent.kafka.startup;

import org.jspecify.annotations.Nullable;

import org.springframework.kafka.annotation.KafkaListenerConfigurer;
import org.springframework.util.ClassUtils;

/**
 * Whether the spring-kafka on the class path retries a record that failed under {@code asyncAcks}. Before 4.0.4
 * (every 3.x included) the container keeps the failed record among the offsets it waits to see acknowledged, and
 * pauses the consumer until they all are: the record is never retried and the consumer's partitions stop for good.
 * From 4.0.4 the container takes the record out of them when it is kept for a retry.
 */
final class AsyncAcksRetries {

	/** The first spring-kafka version that retries a record failed under {@code asyncAcks}. */
	private static final int[] FIXED_IN = { 4, 0, 4 };

	private AsyncAcksRetries() {
	}

	/** Whether the spring-kafka on the class path retries a record failed under {@code asyncAcks}. */
	static boolean supported() {
		return supported(manifestVersion(), ClassUtils.isPresent(ContainerFactoryGuard.SHARE_FACTORY,
				AsyncAcksRetries.class.getClassLoader()));
	}

	/**
	 * Whether the given spring-kafka version retries a record failed under {@code asyncAcks}.
	 * @param version the version from spring-kafka's manifest, {@code null} when it has none (a repackaged jar)
	 * @param springKafka4 whether spring-kafka 4's classes are present: without a version, 4 is taken to be fixed
	 * and 3 not
	 */
	static boolean supported(@Nullable String version, boolean springKafka4) {
		int[] parts = (version != null) ? parse(version) : null;
		if (parts == null) {
			return springKafka4;
		}
		for (int i = 0; i < FIXED_IN.length; i++) {
			if (parts[i] != FIXED_IN[i]) {
				return parts[i] > FIXED_IN[i];
			}
		}
		return true;
	}

	/** spring-kafka's version for a message: its manifest's, or "(version unknown)". */
	static String springKafkaVersion() {
		String version = manifestVersion();
		return (version != null) ? version : "(version unknown)";
	}

	private static @Nullable String manifestVersion() {
		return KafkaListenerConfigurer.class.getPackage().getImplementationVersion();
	}

	/** Major, minor and patch of a version such as {@code 4.0.6} or {@code 4.1.0-M2}; {@code null} if it is not one. */
	private static int @Nullable [] parse(String version) {
		String[] fields = version.split("[.-]", 4);
		if (fields.length < 3) {
			return null;
		}
		int[] parts = new int[3];
		for (int i = 0; i < 3; i++) {
			if (fields[i].isEmpty() || !fields[i].chars().allMatch(Character::isDigit)) {
				return null;
			}
			parts[i] = Integer.parseInt(fields[i]);
		}
		return parts;
	}

}
