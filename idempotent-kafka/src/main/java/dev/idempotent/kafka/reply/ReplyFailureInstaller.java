package dev.idempotent.kafka.reply;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

import dev.idempotent.kafka.IdempotentListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Gives the {@code @KafkaListener} of every {@code @SendTo} {@link IdempotentListener} method (on the method, or on
 * the class of its {@code @KafkaHandler}) a container
 * post-processor that wraps the container's record listener in a {@link ReplyFailureListener}, so that a reply whose
 * send failed fails its record instead of being dropped by spring-kafka. A listener with a container post-processor of
 * its own keeps it; its failed replies are logged at ERROR only (and go to the next redelivery or retry of the
 * request), which is logged at startup at WARN. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ReplyFailureInstaller implements AnnotationEnhancer {

	/** The bean name the container post-processor expression refers to. */
	public static final String BEAN_NAME = "idempotentReplyFailureInstaller";

	private static final Logger logger = LoggerFactory.getLogger(ReplyFailureInstaller.class);

	private static final String CONTAINER_POST_PROCESSOR = "containerPostProcessor";

	/**
	 * Give a replying {@link IdempotentListener} method's {@code @KafkaListener} this installer's container
	 * post-processor, unless it has one of its own.
	 */
	@Override
	public Map<String, Object> apply(Map<String, Object> attributes, AnnotatedElement element) {
		String replying = replying(element);
		if (replying == null) {
			return attributes;
		}
		Object own = attributes.get(CONTAINER_POST_PROCESSOR);
		if (own instanceof String name && StringUtils.hasText(name)) {
			logger.warn("@IdempotentListener method {} replies (@SendTo) and its @KafkaListener has a containerPostProcessor"
					+ " of its own: a reply whose send fails is logged at ERROR but does not fail its record (the"
					+ " reply stays stored with its claim for the next redelivery or retry of the request)", replying);
			return attributes;
		}
		Map<String, Object> enhanced = new HashMap<>(attributes);
		enhanced.put(CONTAINER_POST_PROCESSOR, "#{@" + BEAN_NAME + ".containerPostProcessor()}");
		return enhanced;
	}

	/**
	 * The container post-processor {@link #apply} put on replying listeners; called by spring-kafka through the
	 * expression.
	 * @return the post-processor, never {@code null}
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public ContainerPostProcessor<Object, Object, AbstractMessageListenerContainer<Object, Object>> containerPostProcessor() {
		return (container) -> {
			Object listener = container.getContainerProperties().getMessageListener();
			if (listener instanceof MessageListener record && !(listener instanceof ReplyFailureListener)) {
				container.setupMessageListener(new ReplyFailureListener<>(record));
			}
		};
	}

	/**
	 * The replying {@link IdempotentListener} method a {@code @KafkaListener} element reaches: the method itself, or
	 * for a class-level {@code @KafkaListener} one of its {@code @KafkaHandler}s ({@code @SendTo} on it or on the
	 * class); {@code null} if none replies.
	 */
	private static @Nullable String replying(AnnotatedElement element) {
		if (element instanceof Method method) {
			return replies(method) ? method.toGenericString() : null;
		}
		if (element instanceof Class<?> type) {
			boolean classReplies = AnnotatedElementUtils.hasAnnotation(type, SendTo.class);
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type)) {
				if (AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class) && method.getReturnType() != void.class
						&& AnnotatedElementUtils.hasAnnotation(method, IdempotentListener.class)
						&& (classReplies || AnnotatedElementUtils.hasAnnotation(method, SendTo.class))) {
					return method.toGenericString();
				}
			}
		}
		return null;
	}

	/** Whether spring-kafka sends replies from the method's return value ({@code @SendTo} on a non-void method). */
	public static boolean replies(Method method) {
		return method.getReturnType() != void.class && AnnotatedElementUtils.hasAnnotation(method, IdempotentListener.class)
				&& AnnotatedElementUtils.hasAnnotation(method, SendTo.class);
	}

}
