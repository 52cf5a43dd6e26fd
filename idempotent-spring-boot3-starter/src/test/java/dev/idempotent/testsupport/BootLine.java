package dev.idempotent.testsupport;

import dev.idempotent.boot3.IdempotentKeyHeaderAutoConfiguration;
import dev.idempotent.boot3.KeyHeaderProducerFactoryCustomizer;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.kafka.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration;
import org.springframework.boot.autoconfigure.kafka.KafkaConnectionDetails;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJsonMessageConverter;
import org.springframework.kafka.support.serializer.JsonSerializer;

/**
 * The Spring Boot line the suite runs on, here Spring Boot 3: the Boot and spring-kafka types whose names differ
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

	/** spring-kafka's JSON serializer on this line (Jackson 2 on Boot 3, Jackson 3 on Boot 4). */
	public static final Class<?> JSON_SERIALIZER = JsonSerializer.class;

	/** The starter's auto-configuration of the key header on produced records. */
	public static final Class<?> KEY_HEADER = IdempotentKeyHeaderAutoConfiguration.class;

	/** The starter's customizer of Boot's producer factory that installs the key header. */
	public static final Class<?> KEY_HEADER_CUSTOMIZER = KeyHeaderProducerFactoryCustomizer.class;

	/** Whether a listener can take an {@code Acknowledgment} argument in every ack mode: spring-kafka 3 gives one only in the manual ack modes. */
	public static final boolean ACKNOWLEDGMENT_IN_EVERY_ACK_MODE = false;

	/** Whether listener containers may run with {@code asyncAcks}: no: the starter refuses it on spring-kafka 3, where a failed record stops its partition. */
	public static final boolean ASYNC_ACKS = false;

	/** The end of the name of a listener's span ({@code <topic> process} or {@code <topic> receive}): spring-kafka 3's. */
	public static final String LISTENER_SPAN_SUFFIX = " receive";

	/** Whether a claim's span is a direct child of the listener's (spring-kafka 3: no, an unnamed span is between them). */
	public static final boolean CLAIM_SPAN_IS_CHILD_OF_LISTENER_SPAN = false;

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
		return new StringJsonMessageConverter();
	}

}
