package dev.idempotent.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The delivery settings a Kafka producer will actually use, derived from its configuration the way the Kafka client
 * derives them: values parsed with Kafka's own definitions and defaults; idempotence on unless set to {@code false},
 * or silently off when it is not set and {@code acks} is not {@code all}, {@code retries} is 0 or
 * {@code max.in.flight.requests.per.connection} is above 5.
 *
 * @param acks the effective {@code acks}: {@code all}, {@code 1} or {@code 0}
 * @param idempotence whether the producer is idempotent
 * @param idempotenceSetting why idempotence is as it is, for messages
 */
record ProducerDeliverySettings(String acks, boolean idempotence, String idempotenceSetting) {

	private static final int MAX_IN_FLIGHT_FOR_IDEMPOTENCE = 5;

	/**
	 * Derive the settings from a producer configuration.
	 * @param configs the configuration (e.g. {@code ProducerFactory.getConfigurationProperties()}), never {@code null}
	 * @return the settings
	 * @throws ConfigException if a value cannot be parsed (the producer would refuse it too)
	 */
	static ProducerDeliverySettings of(Map<String, Object> configs) {
		String acks = normalizeAcks(value(configs, ProducerConfig.ACKS_CONFIG).toString());
		Object explicitIdempotence = configs.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
		if (explicitIdempotence != null) {
			boolean idempotence = (Boolean) value(configs, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
			return new ProducerDeliverySettings(acks, idempotence, "enable.idempotence=" + idempotence);
		}
		List<String> conflicts = new ArrayList<>();
		if (!"all".equals(acks)) {
			conflicts.add("acks=" + acks);
		}
		if ((Integer) value(configs, ProducerConfig.RETRIES_CONFIG) == 0) {
			conflicts.add("retries=0");
		}
		int inFlight = (Integer) value(configs, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
		if (inFlight > MAX_IN_FLIGHT_FOR_IDEMPOTENCE) {
			conflicts.add("max.in.flight.requests.per.connection=" + inFlight);
		}
		if (conflicts.isEmpty()) {
			return new ProducerDeliverySettings(acks, true, "enable.idempotence by default");
		}
		return new ProducerDeliverySettings(acks, false,
				"enable.idempotence turned off by the Kafka client because of " + String.join(", ", conflicts));
	}

	/**
	 * Tell whether a leader failure can lose records the producer saw acknowledged.
	 * @return whether {@code acks} is not {@code all}
	 */
	boolean canLoseAcknowledgedRecords() {
		return !"all".equals(this.acks);
	}

	private static Object value(Map<String, Object> configs, String name) {
		ConfigDef.ConfigKey key = ProducerConfig.configDef().configKeys().get(name);
		Object raw = configs.containsKey(name) ? configs.get(name) : key.defaultValue;
		return ConfigDef.parseType(name, raw, key.type);
	}

	private static String normalizeAcks(String acks) {
		String trimmed = acks.trim();
		return "-1".equals(trimmed) ? "all" : trimmed;
	}

}
