package dev.idempotent.testsupport;

import dev.idempotent.boot4.IdempotentKeyHeaderAutoConfiguration;
import dev.idempotent.boot4.KeyHeaderProducerFactoryCustomizer;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * The Spring Boot line the suite runs on, here Spring Boot 4: the Boot and spring-kafka types whose names differ
 * between Boot 3 and Boot 4. The suite is written once against this class; each Boot line compiles it with its own
 * {@code BootLine}.
 */
public final class BootLine {

	public static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;

	public static final Class<?> DATA_SOURCE_TRANSACTION_MANAGER = DataSourceTransactionManagerAutoConfiguration.class;

	public static final Class<?> KAFKA = KafkaAutoConfiguration.class;

	public static final Class<?> METRICS = MetricsAutoConfiguration.class;

	public static final Class<?> COMPOSITE_METER_REGISTRY = CompositeMeterRegistryAutoConfiguration.class;

	public static final Class<?> SIMPLE_METRICS_EXPORT = SimpleMetricsExportAutoConfiguration.class;

	public static final Class<?> OBSERVATION = ObservationAutoConfiguration.class;

	public static final Class<?> FLYWAY = FlywayAutoConfiguration.class;

	/** spring-kafka's JSON serializer on this line (Jackson 3 on Boot 4, Jackson 2 on Boot 3). */
	public static final Class<?> JSON_SERIALIZER = JacksonJsonSerializer.class;

	/** The starter's auto-configuration of the key header on produced records. */
	public static final Class<?> KEY_HEADER = IdempotentKeyHeaderAutoConfiguration.class;

	/** The starter's customizer of Boot's producer factory that installs the key header. */
	public static final Class<?> KEY_HEADER_CUSTOMIZER = KeyHeaderProducerFactoryCustomizer.class;

	/** Whether a listener can take an {@code Acknowledgment} argument in every ack mode: spring-kafka 4 passes a no-op one in the automatic ack modes. */
	public static final boolean ACKNOWLEDGMENT_IN_EVERY_ACK_MODE = true;

	/** Whether listener containers may run with {@code asyncAcks}: yes. */
	public static final boolean ASYNC_ACKS = true;

	/** The end of the name of a listener's span ({@code <topic> process} or {@code <topic> receive}): spring-kafka 4's. */
	public static final String LISTENER_SPAN_SUFFIX = " process";

	/** Whether a claim's span is a direct child of the listener's (spring-kafka 4: yes). */
	public static final boolean CLAIM_SPAN_IS_CHILD_OF_LISTENER_SPAN = true;

	private BootLine() {
	}

	/** The bootstrap servers of the application's Kafka connection, comma-separated. */
	public static String kafkaBootstrapServers(BeanFactory beans) {
		return String.join(",", beans.getBean(KafkaConnectionDetails.class).getBootstrapServers());
	}

	/** A new container factory, configured from the {@code spring.kafka.listener.*} properties as Boot's own. */
	public static ConcurrentKafkaListenerContainerFactory<Object, Object> bootConfiguredFactory(BeanFactory beans,
			ConsumerFactory<Object, Object> consumers) {
		ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
		beans.getBean(ConcurrentKafkaListenerContainerFactoryConfigurer.class).configure(factory, consumers);
		return factory;
	}

	/** spring-kafka's converter of JSON string values to the listener's parameter type. */
	public static RecordMessageConverter jsonMessageConverter() {
		return new StringJacksonJsonMessageConverter();
	}

}
