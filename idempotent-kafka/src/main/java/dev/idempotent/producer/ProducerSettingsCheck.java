package dev.idempotent.producer;

import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.kafka.core.ProducerFactory;

/**
 * At startup, logs one WARN per {@link ProducerFactory} bean whose producers can lose acknowledged records
 * ({@code acks} other than {@code all}) or write a retried send twice ({@code enable.idempotence} off, explicitly
 * or implied by other settings), with why it matters and the fix. The consumer's idempotency table makes
 * duplicates harmless, but it cannot bring back a record the broker lost. Logger
 * {@code dev.idempotent.producer.ProducerSettingsCheck}; never fails the startup.
 *
 * @since 0.1.0
 */
public class ProducerSettingsCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(ProducerSettingsCheck.class);

	private final ListableBeanFactory beanFactory;

	/**
	 * Create the check.
	 * @param beanFactory where the producer factories are, never {@code null}
	 */
	public ProducerSettingsCheck(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.beanFactory.getBeansOfType(ProducerFactory.class, false, false).forEach(this::check);
	}

	@SuppressWarnings("rawtypes")
	private void check(String name, ProducerFactory factory) {
		@SuppressWarnings("unchecked")
		Map<String, Object> configs = factory.getConfigurationProperties();
		ProducerDeliverySettings settings;
		try {
			settings = ProducerDeliverySettings.of(configs);
		}
		catch (ConfigException ex) {
			logger.warn("Could not read the delivery settings of producer factory '{}': {}", name, ex.getMessage());
			return;
		}
		if (settings.canLoseAcknowledgedRecords()) {
			logger.warn("Producer factory '{}' uses acks={}: a record the partition leader acknowledged is lost if "
					+ "the leader fails before its followers copied it, and no consumer-side deduplication can bring "
					+ "it back. Set spring.kafka.producer.acks=all (the Kafka default) unless losing records is "
					+ "acceptable for its topics.", name, settings.acks());
		}
		if (!settings.idempotence()) {
			logger.warn("Producer factory '{}' is not idempotent ({}): a send retried after a timeout can be written "
					+ "twice and out of order; the copies reach consumers as duplicates. Remove the setting, or set "
					+ "spring.kafka.producer.properties[enable.idempotence]=true with acks=all, retries > 0 and at "
					+ "most 5 in-flight requests per connection.", name, settings.idempotenceSetting());
		}
	}

}
