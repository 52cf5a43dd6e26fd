package dev.idempotent.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.expression.StandardBeanExpressionResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.util.StringUtils;

/**
 * Resolves, at startup, the consumer group ids a listener method's containers will have, the way Spring Kafka
 * resolves them: for each {@code @KafkaListener} that reaches the method (repeatable; the class's for a
 * {@code @KafkaHandler} method), its {@code groupId} (placeholders and SpEL resolved), else its {@code id} when
 * {@code idIsGroup} is true, else the container factory's container properties' group id, else its consumer
 * factory's {@code group.id} ({@code spring.kafka.consumer.group-id}). A {@code group.id} in
 * {@code @KafkaListener(properties)} is ignored, as Spring Kafka ignores it. A group id that needs the listener
 * bean ({@code #{__listener...}}) or a factory that is not an {@link AbstractKafkaListenerContainerFactory}
 * cannot be resolved here; it is checked at the first delivery instead ({@link ScopeOwners}).
 */
final class ListenerGroupIds {

	private final ConfigurableListableBeanFactory beanFactory;

	ListenerGroupIds(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Resolve the group ids of a method's listeners.
	 * @param method the listener method
	 * @param containerFactory the container factory bean name its endpoint names
	 * @return one entry per {@code @KafkaListener} reaching the method: its group id, or {@code null} where it
	 * cannot be resolved at startup
	 */
	List<@Nullable String> of(Method method, String containerFactory) {
		Set<KafkaListener> listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method, KafkaListener.class);
		if (listeners.isEmpty() && AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class)) {
			listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method.getDeclaringClass(),
					KafkaListener.class);
		}
		List<@Nullable String> groups = new ArrayList<>();
		for (KafkaListener listener : listeners) {
			groups.add(groupId(listener, containerFactory));
		}
		return groups;
	}

	private @Nullable String groupId(KafkaListener listener, String containerFactory) {
		try {
			String group = StringUtils.hasText(listener.groupId()) ? evaluate(listener.groupId()) : null;
			if (group == null && listener.idIsGroup() && StringUtils.hasText(listener.id())) {
				group = evaluate(listener.id());
			}
			if (StringUtils.hasText(group)) {
				return group;
			}
			return factoryGroupId(containerFactory);
		}
		catch (RuntimeException ex) {
			// e.g. an expression on the listener bean (#{__listener.group}), unknown before the listener runs
			return null;
		}
	}

	private @Nullable String factoryGroupId(@Nullable String name) {
		if (name == null || !this.beanFactory.containsBean(name)
				|| !(this.beanFactory.getBean(name) instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory)) {
			return null;
		}
		String containerLevel = factory.getContainerProperties().getGroupId();
		if (StringUtils.hasText(containerLevel)) {
			return containerLevel;
		}
		Object consumerLevel = (factory.getConsumerFactory() != null)
				? factory.getConsumerFactory().getConfigurationProperties().get(ConsumerConfig.GROUP_ID_CONFIG) : null;
		return (consumerLevel instanceof String group && StringUtils.hasText(group)) ? group : null;
	}

	/**
	 * Placeholders, then SpEL, as Spring Kafka resolves listener attributes; {@code null} if it yields none (an
	 * empty group id, like Spring Kafka's, falls through to the factory's).
	 */
	private @Nullable String evaluate(String value) {
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		BeanExpressionResolver expressions = (this.beanFactory.getBeanExpressionResolver() != null)
				? this.beanFactory.getBeanExpressionResolver() : new StandardBeanExpressionResolver();
		Object result = (resolved != null)
				? expressions.evaluate(resolved, new BeanExpressionContext(this.beanFactory, null)) : null;
		if (result != null && !(result instanceof String)) {
			throw new IllegalStateException("not a String: " + result);
		}
		return (String) result;
	}

}
