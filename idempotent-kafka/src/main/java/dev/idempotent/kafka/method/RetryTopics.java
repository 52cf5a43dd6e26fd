package dev.idempotent.kafka.method;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.List;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.retrytopic.RetryTopicConfiguration;

/**
 * Whether Spring Kafka gives a listener method non-blocking retries, found where Spring Kafka looks: a
 * {@code @RetryableTopic} on the method (on the class, for the {@code @KafkaHandler} methods of a class-level
 * listener), else a {@link RetryTopicConfiguration} bean configured for one of its topics. Spring Kafka then runs
 * the same method in a container per retry topic and one for the dead-letter topic, each with the listener's group
 * id plus a suffix ({@code orders-retry}, {@code orders-dlt}) when the listener names its group.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class RetryTopics {

	private RetryTopics() {
	}

	/**
	 * Tell whether a method gets retry topics.
	 * @param method the listener method
	 * @param topics the topics its listeners name, placeholders resolved (empty for a topic pattern)
	 * @param beanFactory holds the {@code RetryTopicConfiguration} beans
	 * @return {@code true} if Spring Kafka would create retry containers for it
	 */
	public static boolean apply(Method method, List<String> topics, ListableBeanFactory beanFactory) {
		boolean handler = MergedAnnotations.from(method).isPresent(KafkaHandler.class);
		if (annotated(method) || (handler && annotated(method.getDeclaringClass()))) {
			return true;
		}
		// as Spring Kafka asks: every topic must be allowed, so no topics (a topic pattern) match every configuration
		String[] names = topics.toArray(String[]::new);
		return beanFactory.getBeansOfType(RetryTopicConfiguration.class, false, false)
			.values()
			.stream()
			.anyMatch((configuration) -> configuration.hasConfigurationForTopics(names));
	}

	private static boolean annotated(AnnotatedElement element) {
		return MergedAnnotations.from(element, SearchStrategy.TYPE_HIERARCHY, RepeatableContainers.none())
			.isPresent(RetryableTopic.class);
	}

}
