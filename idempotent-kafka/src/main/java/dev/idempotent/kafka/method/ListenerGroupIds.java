package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectFactory;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.Scope;
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
 * {@code @KafkaListener(properties)} is ignored, as Spring Kafka ignores it. An expression on the listener bean
 * ({@code #{__listener...}}) is evaluated with each singleton bean of the listener's class created so far. A group
 * id on a bean not created yet (prototype, lazy) or from a factory that is not an
 * {@link AbstractKafkaListenerContainerFactory} cannot be resolved here; it is checked at the first delivery
 * instead ({@link ScopeOwners}).
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
	 * @return one entry per {@code @KafkaListener} reaching the method and listener bean created so far (an
	 * expression on the listener bean is evaluated for each): its group id, {@code null} where it cannot be
	 * resolved at startup
	 */
	List<GroupId> of(Method method, String containerFactory) {
		Set<KafkaListener> listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method, KafkaListener.class);
		if (listeners.isEmpty() && AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class)) {
			listeners = AnnotatedElementUtils.findMergedRepeatableAnnotations(method.getDeclaringClass(),
					KafkaListener.class);
		}
		List<Object> beans = listenerBeans(method.getDeclaringClass());
		List<GroupId> groups = new ArrayList<>();
		for (KafkaListener listener : listeners) {
			if (beans.isEmpty()) {
				groups.add(groupId(listener, containerFactory, null));
			}
			for (Object bean : beans) {
				groups.add(groupId(listener, containerFactory, bean));
			}
		}
		return groups;
	}

	/**
	 * The singleton beans of a listener class created so far, the instances Spring Kafka registered as listeners
	 * (and names {@code __listener} in expressions); prototypes and beans not created yet are not looked up here.
	 */
	private List<Object> listenerBeans(Class<?> type) {
		List<Object> beans = new ArrayList<>();
		for (String name : this.beanFactory.getBeanNamesForType(type, false, false)) {
			Object bean = this.beanFactory.containsSingleton(name) ? this.beanFactory.getSingleton(name) : null;
			if (bean != null) {
				beans.add(bean);
			}
		}
		return beans;
	}

	private GroupId groupId(KafkaListener listener, String containerFactory, @Nullable Object bean) {
		try {
			String group = StringUtils.hasText(listener.groupId()) ? evaluate(listener.groupId(), listener, bean) : null;
			if (group == null && listener.idIsGroup() && StringUtils.hasText(listener.id())) {
				group = evaluate(listener.id(), listener, bean);
			}
			if (StringUtils.hasText(group)) {
				return new GroupId(group, true);
			}
			return new GroupId(factoryGroupId(containerFactory), false);
		}
		catch (RuntimeException ex) {
			// e.g. an expression on a listener bean that is not created yet (a prototype, a lazy bean)
			return new GroupId(null, false);
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
	private @Nullable String evaluate(String value, KafkaListener listener, @Nullable Object bean) {
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		BeanExpressionResolver expressions = (this.beanFactory.getBeanExpressionResolver() != null)
				? this.beanFactory.getBeanExpressionResolver() : new StandardBeanExpressionResolver();
		Scope listenerBean = (bean != null) ? new ListenerBeanScope(listener.beanRef(), bean) : null;
		Object result = (resolved != null)
				? expressions.evaluate(resolved, new BeanExpressionContext(this.beanFactory, listenerBean)) : null;
		if (result != null && !(result instanceof String)) {
			throw new IllegalStateException("not a String: " + result);
		}
		return (String) result;
	}

	/**
	 * A group id resolved at startup.
	 * @param value the group id, {@code null} if it cannot be resolved at startup
	 * @param namedByListener whether the {@code @KafkaListener} names it ({@code groupId}, or {@code id} as the
	 * group), rather than the container or consumer factory
	 */
	record GroupId(@Nullable String value, boolean namedByListener) {
	}

	/**
	 * Names the listener bean in expressions, as Spring Kafka does while it processes the listener
	 * ({@code @KafkaListener(beanRef)}, {@code __listener} by default); nothing else lives in it.
	 */
	private record ListenerBeanScope(String name, Object bean) implements Scope {

		@Override
		public @Nullable Object resolveContextualObject(String key) {
			return key.equals(this.name) ? this.bean : null;
		}

		@Override
		public Object get(String name, ObjectFactory<?> objectFactory) {
			throw new UnsupportedOperationException("holds no beans");
		}

		@Override
		public @Nullable Object remove(String name) {
			return null;
		}

		@Override
		public void registerDestructionCallback(String name, Runnable callback) {
		}

		@Override
		public @Nullable String getConversationId() {
			return null;
		}

	}

}
