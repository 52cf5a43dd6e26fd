package dev.idempotent.kafka.group;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.method.ListenerMethods;
import dev.idempotent.kafka.method.RetryTopics;
import dev.idempotent.kafka.reply.ReplyFailureInstaller;
import dev.idempotent.kafka.support.CurrentRecordInterceptor;
import dev.idempotent.kafka.support.ListenerInterceptors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.DirectFieldAccessor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.KafkaListenerAnnotationBeanPostProcessor.AnnotationEnhancer;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.CommonContainerStoppingErrorHandler;
import org.springframework.kafka.listener.CommonDelegatingErrorHandler;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonMixedErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.listener.adapter.KafkaBackoffAwareMessageListenerAdapter;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.util.StringUtils;

/**
 * Installs group commit (docs/semantics.md, "Group commit") on the containers of the single-record
 * {@link IdempotentListener} methods that use it ({@link IdempotentListener#groupCommit()}, and
 * {@code idempotent.group-commit.enabled} for {@link GroupCommit#DEFAULT}), whatever container factory builds them.
 * <ul>
 * <li>As spring-kafka's {@link AnnotationEnhancer}, it gives the {@code @KafkaListener} of each such method a
 * container post-processor ({@code containerPostProcessor}, an expression naming this bean), so no listener code or
 * container factory changes.</li>
 * <li>That post-processor runs when the container is created: it checks that group commit can serve the listener,
 * and replaces the container's record listener with a {@link GroupCommitListener} around it (spring-kafka then runs
 * the container in batch mode, which hands the listener each poll; acknowledgment mode {@code RECORD}, which a batch
 * container refuses, becomes {@code BATCH}: either way the offsets follow the database commit).</li>
 * </ul>
 * Group commit cannot serve a batch listener (already claimed in one transaction), LEASED mode, a method that takes an
 * {@code Acknowledgment} or replies ({@code @SendTo}), a listener error handler ({@code errorHandler}, which the
 * group would bypass), a container error handler other than a {@code DefaultErrorHandler} (one that handles records
 * only would let the container commit past a failing member's group), a listener that has its own {@code containerPostProcessor}, retry topics, manual
 * acknowledgment, a Kafka transaction, or a container factory with a record interceptor of the application (a batch
 * container does not call it): with {@link GroupCommit#ENABLED} the application refuses to start naming the reason;
 * with {@link GroupCommit#DEFAULT} the listener runs record by record and the reason is logged at INFO.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public final class GroupCommitInstaller implements AnnotationEnhancer, SmartInitializingSingleton, BeanFactoryAware {

	/** The name of this installer's bean, which the container post-processor expressions refer to. */
	public static final String BEAN_NAME = "idempotentGroupCommitInstaller";

	private static final Logger logger = LoggerFactory.getLogger(GroupCommitInstaller.class);

	private static final String CONTAINER_POST_PROCESSOR = "containerPostProcessor";

	private final boolean enabledByDefault;

	private final GroupCommitSettings settings;

	private @Nullable ListableBeanFactory beanFactory;

	private final List<Method> methods = new CopyOnWriteArrayList<>();

	private final Supplier<ListenerMethods> listenerMethods;

	private final Supplier<TransactionalClaimExecutor> executor;

	/**
	 * Create the installer.
	 * @param enabledByDefault whether listeners with {@link GroupCommit#DEFAULT} use group commit
	 * @param maxRecords the most records of one group, 1 or more
	 * @param maxWait how long a group should take at most from its claims to its commit; a slower group halves the
	 * next one's size
	 * @param listenerMethods the resolved listener methods, looked up when the first container is created
	 * @param executor the claim executor, looked up when the first container is created
	 * @throws IllegalArgumentException if a value is out of range
	 */
	public GroupCommitInstaller(boolean enabledByDefault, int maxRecords, Duration maxWait,
			Supplier<ListenerMethods> listenerMethods, Supplier<TransactionalClaimExecutor> executor) {
		this.enabledByDefault = enabledByDefault;
		this.settings = new GroupCommitSettings(maxRecords, maxWait);
		this.settings.sizes();
		this.listenerMethods = listenerMethods;
		this.executor = executor;
	}

	/**
	 * Refuse a listener that asks for group commit explicitly but that no method-level {@code @KafkaListener} reaches
	 * (a {@code @KafkaHandler} of a class-level {@code @KafkaListener}): its container cannot be told apart.
	 * @throws IllegalStateException naming the method
	 */
	@Override
	public void afterSingletonsInstantiated() {
		for (ListenerMethod listener : this.listenerMethods.get().all()) {
			IdempotentListener annotation = AnnotatedElementUtils.findMergedAnnotation(listener.method(),
					IdempotentListener.class);
			if (annotation != null && annotation.groupCommit() == GroupCommit.ENABLED
					&& !this.methods.contains(listener.method())
					&& !AnnotatedElementUtils.hasAnnotation(listener.method(), KafkaListener.class)) {
				refuseOrLog(listener.method(), GroupCommit.ENABLED, "it is a @KafkaHandler; group commit needs"
						+ " @KafkaListener on the method");
			}
		}
	}

	/**
	 * Give the {@code @KafkaListener} of a method that uses group commit this installer's container post-processor.
	 * @throws IllegalStateException if the listener has a container post-processor of its own and asks for group
	 * commit explicitly
	 */
	@Override
	public Map<String, Object> apply(Map<String, Object> attributes, AnnotatedElement element) {
		if (!(element instanceof Method method)) {
			return attributes;
		}
		IdempotentListener annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class);
		if (annotation == null || !uses(annotation.groupCommit())) {
			return attributes;
		}
		if (ReplyFailureInstaller.replies(method)) {
			// decided here: the reply's container post-processor is given to the listener instead
			refuseOrLog(method, annotation.groupCommit(), "it replies (@SendTo)");
			return attributes;
		}
		Object own = attributes.get(CONTAINER_POST_PROCESSOR);
		if (own instanceof String name && StringUtils.hasText(name)) {
			refuseOrLog(method, annotation.groupCommit(), "its @KafkaListener has a containerPostProcessor of its own");
			return attributes;
		}
		int id;
		synchronized (this.methods) {
			id = this.methods.size();
			this.methods.add(method);
		}
		Map<String, Object> enhanced = new HashMap<>(attributes);
		enhanced.put(CONTAINER_POST_PROCESSOR, "#{@" + BEAN_NAME + ".containerPostProcessor(" + id + ")}");
		return enhanced;
	}

	/**
	 * The container post-processor of a method given group commit by {@link #apply}; called by spring-kafka through
	 * the expression {@link #apply} put on its {@code @KafkaListener}.
	 * @param id the method's number
	 * @return the post-processor, never {@code null}
	 */
	public ContainerPostProcessor<Object, Object, AbstractMessageListenerContainer<Object, Object>> containerPostProcessor(
			int id) {
		Method method = this.methods.get(id);
		GroupSize sizes = this.settings.sizes();
		return (container) -> install(method, container, sizes);
	}

	private boolean uses(GroupCommit choice) {
		return choice == GroupCommit.ENABLED || (choice == GroupCommit.DEFAULT && this.enabledByDefault);
	}

	private void install(Method method, AbstractMessageListenerContainer<?, ?> container, GroupSize sizes) {
		ListenerMethod listener = this.listenerMethods.get().get(method);
		IdempotentListener annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class);
		GroupCommit choice = (annotation != null) ? annotation.groupCommit() : GroupCommit.DEFAULT;
		Object delegate = container.getContainerProperties().getMessageListener();
		String problem = problem(listener, container, delegate);
		if (problem != null) {
			refuseOrLog(method, choice, problem);
			return;
		}
		ContainerProperties properties = container.getContainerProperties();
		if (properties.getAckMode() == AckMode.RECORD) {
			properties.setAckMode(AckMode.BATCH);
		}
		container.setupMessageListener(new GroupCommitListener<>(delegate, this.executor, sizes));
	}

	/** Why group commit cannot serve a listener on a container, or {@code null}. */
	private @Nullable String problem(ListenerMethod listener, AbstractMessageListenerContainer<?, ?> container,
			@Nullable Object delegate) {
		Method method = listener.method();
		ContainerProperties properties = container.getContainerProperties();
		if (listener.endpoint().batch() || delegate instanceof BatchMessageListener) {
			return "it is a batch listener, whose batches are claimed in one transaction already";
		}
		if (listener.mode() == ClaimMode.LEASED) {
			return "it is in LEASED mode, whose claims commit on their own";
		}
		if (listener.endpoint().acknowledgmentIndex() >= 0) {
			return "it takes an Acknowledgment";
		}
		if (AnnotatedElementUtils.hasAnnotation(method, SendTo.class)) {
			return "it replies (@SendTo)";
		}
		if (method.getReturnType() != void.class && method.getReturnType() != Void.class) {
			// spring-kafka sends a returned Message (or a reply to a request's reply topic) without @SendTo; a group
			// runs the method after the container's listener returned, so every such reply would be lost
			return "it returns a value, which spring-kafka may send as a reply";
		}
		if (AnnotatedElementUtils.findMergedRepeatableAnnotations(method, KafkaListener.class)
			.stream()
			.anyMatch((kafkaListener) -> StringUtils.hasText(kafkaListener.errorHandler()))) {
			return "its @KafkaListener has an errorHandler, which the group's transaction would bypass";
		}
		if (delegate == null) {
			return "its container has no message listener";
		}
		if (delegate instanceof KafkaBackoffAwareMessageListenerAdapter || retryTopics(method, properties)) {
			// spring-kafka wraps the listener for retry topics after this post-processor ran: asked here
			return "it uses retry topics, whose back-off works per record";
		}
		if (properties.getAckMode() == AckMode.MANUAL || properties.getAckMode() == AckMode.MANUAL_IMMEDIATE) {
			return "its container acknowledges manually (" + properties.getAckMode() + ")";
		}
		if (containerTransactionManager(properties)) {
			// KafkaMessageListenerContainer runs a batch in the container's transaction and, on any failure, its
			// after-rollback processor seeks the whole poll back, also over a record already dead-lettered
			return "its container runs the listener in a transaction of its own (a transaction manager on its container"
					+ " properties)";
		}
		if (properties.isDeliveryAttemptHeader()) {
			// spring-kafka adds the header in its record path only
			return "its container adds the delivery attempt header (deliveryAttemptHeader), which a batch container"
					+ " does not";
		}
		CommonErrorHandler handler = container.getCommonErrorHandler();
		if (handler != null && !retriesTheFailingMember(handler)) {
			// a group fails as a batch naming its failing member: a handler that handles records only (spring-kafka's
			// CommonLoggingErrorHandler, one that implements handleOne) returns, and the container commits the poll
			return "its container's error handler (" + handler.getClass().getName() + ") is not a DefaultErrorHandler:"
					+ " a failing member of a group would make the container commit past the records after it, which"
					+ " would never be processed. Use a DefaultErrorHandler (the starter's, or your own as a bean with a"
					+ " recoverer), or let the listener run record by record (groupCommit = DISABLED)";
		}
		RecordInterceptor<?, ?> interceptor = ListenerInterceptors.record(container);
		if (interceptor != null && !(interceptor instanceof CurrentRecordInterceptor)) {
			return "its container factory has a record interceptor of the application's, which a batch container does"
					+ " not call";
		}
		return null;
	}

	/**
	 * Whether an error handler, given a batch that failed with a {@code BatchListenerFailedException} naming a record,
	 * commits the records before it and delivers that record and the ones after it again (or stops the container,
	 * committing nothing): spring-kafka's {@link DefaultErrorHandler} (the starter's is one) and
	 * {@link CommonContainerStoppingErrorHandler}, and a {@link CommonMixedErrorHandler} or
	 * {@link CommonDelegatingErrorHandler} that seeks after handling and is made of them only.
	 */
	private static boolean retriesTheFailingMember(CommonErrorHandler handler) {
		if (handler instanceof DefaultErrorHandler || handler instanceof CommonContainerStoppingErrorHandler) {
			return true;
		}
		if (!handler.seeksAfterHandling()) {
			// a composite that does not seek hands the failed poll to handleBatch, whose default returns no remaining
			// records: the container would commit the whole poll
			return false;
		}
		// spring-kafka's composite handlers expose no getters: their fields are read (the same in 3.3 and 4.x)
		DirectFieldAccessor fields = new DirectFieldAccessor(handler);
		if (handler instanceof CommonMixedErrorHandler) {
			// a group's failure is a batch's: the mixed handler hands it to its batch handler
			return fields.getPropertyValue("batchErrorHandler") instanceof CommonErrorHandler batch
					&& retriesTheFailingMember(batch);
		}
		if (handler instanceof CommonDelegatingErrorHandler) {
			if (!(fields.getPropertyValue("defaultErrorHandler") instanceof CommonErrorHandler fallback)
					|| !retriesTheFailingMember(fallback)) {
				return false;
			}
			return fields.getPropertyValue("delegates") instanceof Map<?, ?> delegates && delegates.values()
				.stream()
				.allMatch((delegate) -> delegate instanceof CommonErrorHandler common && retriesTheFailingMember(common));
		}
		return false;
	}

	/**
	 * Whether the container has a transaction manager: a Kafka-aware one, or any set with the deprecated
	 * {@code setTransactionManager}, which spring-kafka 4 still uses.
	 */
	@SuppressWarnings("removal")
	private static boolean containerTransactionManager(ContainerProperties properties) {
		return properties.getKafkaAwareTransactionManager() != null || properties.getTransactionManager() != null;
	}

	/** Whether spring-kafka gives the method retry topics (a {@code @RetryableTopic}, a configuration bean). */
	private boolean retryTopics(Method method, ContainerProperties properties) {
		String[] topics = properties.getTopics();
		return (this.beanFactory != null)
				&& RetryTopics.apply(method, (topics != null) ? List.of(topics) : List.of(), this.beanFactory);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	private static void refuseOrLog(Method method, GroupCommit choice, String problem) {
		if (choice == GroupCommit.ENABLED) {
			throw new IllegalStateException("@IdempotentListener(groupCommit = ENABLED) method "
					+ method.toGenericString() + " cannot use group commit: " + problem
					+ "; remove groupCommit = ENABLED, or remove what prevents it");
		}
		logger.info("@IdempotentListener method {} runs record by record, not with group commit: {}",
				method.toGenericString(), problem);
	}

	/** The group commit settings, from which each listener gets its own sizing. */
	private record GroupCommitSettings(int maxRecords, Duration maxWait) {

		GroupSize sizes() {
			return new GroupSize(this.maxRecords, this.maxWait);
		}

	}

}
