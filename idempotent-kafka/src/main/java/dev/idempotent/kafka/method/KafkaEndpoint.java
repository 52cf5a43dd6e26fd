package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.TopicPartition;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.util.StringUtils;

/**
 * The Kafka side of an {@link IdempotentListener} method, read from its {@code @KafkaListener}: which container
 * factory builds its container, the consumer properties it overrides, where its {@link Acknowledgment}
 * parameter is, and the topics it names.
 *
 * @param containerFactory the name of the container factory bean
 * @param consumerProperties the listener's own consumer properties ({@code name=value})
 * @param acknowledgmentIndex the index of the {@code Acknowledgment} parameter, or -1
 * @param batch whether the listener is declared a batch listener ({@code batch = "true"}, a list of records or a
 * {@code ConsumerRecords})
 * @param batchParameters the parameters that hold one element per record when the method receives a batch
 * @param topics the topics it names ({@code topics} and {@code topicPartitions}), placeholders resolved; may
 * still hold SpEL expressions ({@code #{...}}); empty for a topic pattern
 * <p>Internal: public for the starter's other packages, not API.
 */
public record KafkaEndpoint(String containerFactory, List<String> consumerProperties, int acknowledgmentIndex, boolean batch,
		BatchParameters batchParameters, List<String> topics) {

	/** The container factory {@code @KafkaListener} uses when it names none. */
	static final String DEFAULT_CONTAINER_FACTORY = "kafkaListenerContainerFactory";

	/**
	 * Read the endpoint of a method.
	 * @param method the {@code @IdempotentListener} method
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @throws IllegalArgumentException if no Kafka listener reaches the method, or a batch listener takes no list or
	 * takes per-record arguments that cannot be matched to their records
	 */
	static KafkaEndpoint of(Method method, UnaryOperator<String> placeholders) {
		List<KafkaListener> listeners = listeners(method);
		KafkaListener listener = listeners.isEmpty() ? null : listeners.get(0);
		if (listener == null) {
			throw new IllegalArgumentException("@IdempotentListener method " + method.toGenericString()
					+ " is not reached by any Kafka listener: annotate it with @KafkaListener, or with @KafkaHandler"
					+ " in a class annotated with @KafkaListener");
		}
		BatchParameters parameters = BatchParameters.of(method);
		boolean batch = "true".equalsIgnoreCase(placeholders.apply(listener.batch())) || takesRecordList(method)
				|| parameters.kind() == BatchParameters.Kind.CONSUMER_RECORDS;
		if (batch && parameters.batchIndex() < 0) {
			throw new IllegalArgumentException("@IdempotentListener batch listener " + method.toGenericString()
					+ " must take the batch as a List (of records or of payloads) or as ConsumerRecords");
		}
		if (batch && parameters.problem() != null) {
			throw new IllegalArgumentException("@IdempotentListener batch listener " + method.toGenericString()
					+ " cannot be supported: " + parameters.problem());
		}
		String filter = listeners.stream()
			.map((each) -> placeholders.apply(each.filter()))
			.filter(StringUtils::hasText)
			.findFirst()
			.orElse(null);
		if (batch && parameters.kind() == BatchParameters.Kind.PAYLOADS && filter != null) {
			throw new IllegalArgumentException("@IdempotentListener batch listener " + method.toGenericString()
					+ " takes a list of payloads and has a record filter ('" + filter + "'): spring-kafka"
					+ " filters after the starter sees the batch, so the payloads cannot be matched to their keys;"
					+ " take List<ConsumerRecord<K, V>> (filtered records are then matched exactly), or filter in the method");
		}
		String factory = placeholders.apply(listener.containerFactory());
		List<String> properties = Arrays.stream(listener.properties()).map(placeholders).toList();
		List<String> topics = listeners.stream()
			.flatMap((each) -> Stream.concat(Arrays.stream(each.topics()),
					Arrays.stream(each.topicPartitions()).map(TopicPartition::topic)))
			.map(placeholders)
			.filter(StringUtils::hasText)
			.toList();
		return new KafkaEndpoint(StringUtils.hasText(factory) ? factory : DEFAULT_CONTAINER_FACTORY, properties,
				acknowledgmentIndex(method), batch, parameters, topics);
	}

	/**
	 * The {@code @KafkaListener}s that reach a method: its own (repeatable: all of them must agree on the
	 * container factory, consumer properties and batch setting, which this endpoint holds once), else, for a
	 * {@code @KafkaHandler}, its class's.
	 * @throws IllegalArgumentException if repeated listeners of the method differ in those settings
	 */
	private static List<KafkaListener> listeners(Method method) {
		Set<KafkaListener> listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method, KafkaListener.class);
		if (listeners.isEmpty() && AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class)) {
			listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method.getDeclaringClass(),
					KafkaListener.class);
		}
		if (listeners.isEmpty()) {
			return List.of();
		}
		KafkaListener first = listeners.iterator().next();
		for (KafkaListener other : listeners) {
			if (!other.containerFactory().equals(first.containerFactory())
					|| !Arrays.equals(other.properties(), first.properties()) || !other.batch().equals(first.batch())) {
				throw new IllegalArgumentException("@IdempotentListener method " + method.toGenericString()
						+ " has repeated @KafkaListener annotations with different containerFactory, properties or batch"
						+ " settings; give each its own method");
			}
		}
		return List.copyOf(listeners);
	}

	/**
	 * Return the value of a consumer property the listener sets itself.
	 * @param name the property name
	 * @return its value, or {@code null} if the listener does not set it
	 */
	public @Nullable String consumerProperty(String name) {
		for (String property : this.consumerProperties) {
			int separator = property.indexOf('=') >= 0 ? property.indexOf('=') : property.indexOf(':');
			if (separator > 0 && property.substring(0, separator).trim().equals(name)) {
				return property.substring(separator + 1).trim();
			}
		}
		return null;
	}

	private static boolean takesRecordList(Method method) {
		for (Type type : method.getGenericParameterTypes()) {
			if (type instanceof ParameterizedType parameterized && parameterized.getRawType() == List.class) {
				Type element = parameterized.getActualTypeArguments()[0];
				if (element == ConsumerRecord.class
						|| (element instanceof ParameterizedType p && p.getRawType() == ConsumerRecord.class)) {
					return true;
				}
			}
		}
		return false;
	}

	private static int acknowledgmentIndex(Method method) {
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (Acknowledgment.class.isAssignableFrom(types[i])) {
				return i;
			}
		}
		return -1;
	}

}
