package dev.idempotent.kafka.startup;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.error.ErrorHandlerClassifier;
import dev.idempotent.kafka.error.IdempotentErrorHandlers;
import dev.idempotent.kafka.error.TransientAwareAfterRollbackProcessor;
import dev.idempotent.kafka.error.TransientAwareErrorHandler;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.method.ListenerMethods;
import dev.idempotent.kafka.offset.StoredOffsets;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.kafka.annotation.KafkaListenerConfigurer;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistrar;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.FailedRecordProcessor;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;

/**
 * Gives every listener container factory that an {@link IdempotentListener} method runs on the starter's failure
 * guarantees (retries, then the dead-letter topic with the reason and key headers and a FAILED row; bad keys at
 * once; database outages retried until they pass), or stops the application naming the factory and what it lacks.
 * Spring Boot sets its error handler only on the factory it builds; a factory the application builds itself gets
 * none, and spring-kafka's default then retries a failing record nine times and drops it (logged, offset committed).
 * <p>It runs as a {@link KafkaListenerConfigurer}: after every singleton listener bean exists (so every
 * annotated method is known) and before the first listener container is created (Spring Kafka creates them right
 * after calling the configurers), so what it sets on a factory reaches every container of that factory. A factory
 * does not expose its error handler, so the guard asks the factory for a container it never starts (with the
 * factory's settings and container customizer applied) and reads that container's.
 * <ul>
 * <li>Without a Kafka transaction manager, failures go to the container's {@link CommonErrorHandler}: none →
 * the application's error handler bean (the starter's when the application defines none) is set on the factory;
 * a handler bean → accepted (the application chose it; the starter classifies bad keys as not retryable on it);
 * a handler that is not a bean → refused, since spring-kafka exposes no handler's recoverer and the default one
 * drops records.</li>
 * <li>With a Kafka transaction manager ({@code ContainerProperties.setKafkaAwareTransactionManager}), failures go
 * to the container's {@link AfterRollbackProcessor} instead: spring-kafka's default (per container) → the
 * application's after-rollback processor bean (the starter's when it defines none) is set on the factory; a bean →
 * accepted; one set on the factory that is not a bean → refused. Batch listeners under a Kafka transaction are
 * refused: spring-kafka's after-rollback processor recovers a whole failed batch, not the failing record.</li>
 * </ul>
 * Refused as well: a factory of Kafka share-group containers (the starter supports consumer groups only), and
 * {@code asyncAcks} on a spring-kafka that never retries a record failed under it ({@link AsyncAcksRetries}).
 * Listener beans created later (lazy, prototype) are not seen. Not thread-safe; called once by Spring Kafka.
 *
 * @since 0.1.0
 */
public final class ContainerFactoryGuard implements KafkaListenerConfigurer {

	private static final Logger logger = LoggerFactory.getLogger(ContainerFactoryGuard.class);

	private static final String PROBE_TOPIC = "idempotent-container-factory-probe";

	/** spring-kafka's factory of Kafka share-group (KIP-932) containers, from spring-kafka 4.0. */
	static final String SHARE_FACTORY = "org.springframework.kafka.config.ShareKafkaListenerContainerFactory";

	private final Supplier<ListenerMethods> methods;

	private final ListableBeanFactory beanFactory;

	/**
	 * Create the guard.
	 * @param methods the resolved listener methods
	 * @param beanFactory looks up the container factories, error handlers and after-rollback processors
	 */
	public ContainerFactoryGuard(Supplier<ListenerMethods> methods, ListableBeanFactory beanFactory) {
		this.methods = methods;
		this.beanFactory = beanFactory;
	}

	/**
	 * Check, and complete where it can, the factory of every idempotent listener.
	 * @param registrar unused
	 * @throws IllegalStateException naming the factory and what it lacks
	 */
	@Override
	public void configureKafkaListeners(KafkaListenerEndpointRegistrar registrar) {
		Map<String, ListenerMethod> byFactory = new LinkedHashMap<>();
		for (ListenerMethod method : this.methods.get().all()) {
			ListenerMethod first = byFactory.putIfAbsent(method.endpoint().containerFactory(), method);
			if (first != null && method.endpoint().batch() && !first.endpoint().batch()) {
				byFactory.put(method.endpoint().containerFactory(), method);
			}
		}
		byFactory.forEach(this::guard);
	}

	private void guard(String name, ListenerMethod method) {
		if (this.beanFactory.containsBean(name) && isShareGroupFactory(this.beanFactory.getBean(name))) {
			throw new IllegalStateException("Container factory '" + name + "' runs Kafka share-group consumers"
					+ " (KIP-932), which the starter does not support: " + method + " would run without its guarantee."
					+ " A share group acknowledges each record to the broker (accept, release, reject) instead of"
					+ " committing offsets, and redelivers a record to another consumer when its acquisition lock"
					+ " times out, even while the first one still works on it; the starter's acknowledgment, retry and"
					+ " dead-letter handling are built for consumer groups. Run this listener on a consumer-group"
					+ " factory (ConcurrentKafkaListenerContainerFactory), or remove @IdempotentListener from it.");
		}
		if (!this.beanFactory.containsBean(name)
				|| !(this.beanFactory.getBean(name) instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory)) {
			return;
		}
		AbstractMessageListenerContainer<?, ?> probe = probe(name, factory);
		if (probe.getContainerProperties().isAsyncAcks() && !AsyncAcksRetries.supported()) {
			throw new IllegalStateException("Container factory '" + name + "' has asyncAcks on, and on spring-kafka "
					+ AsyncAcksRetries.springKafkaVersion() + " a record that fails under asyncAcks is never retried and"
					+ " the consumer's partitions stop for good: the container keeps waiting for the failed record's"
					+ " acknowledgment (fixed in spring-kafka 4.0.4). " + method + " would stall at its first failure."
					+ " Turn asyncAcks off (spring.kafka.listener.async-acks=false, or setAsyncAcks(false) on the"
					+ " factory's container properties), or upgrade to spring-kafka 4.0.4 or later.");
		}
		if (kafkaTransactionManager(probe.getContainerProperties()) == null) {
			guardErrorHandler(name, factory, probe);
		}
		else {
			if (method.endpoint().batch() || Boolean.TRUE.equals(factory.isBatchListener())) {
				throw new IllegalStateException("Container factory '" + name + "' has a Kafka transaction manager and"
						+ " runs the batch listener " + method + ": under a Kafka transaction spring-kafka's"
						+ " after-rollback processor recovers a whole failed batch, not the failing record, so good"
						+ " records would be dead-lettered. Use a single-record @IdempotentListener on this factory, or"
						+ " a batch factory without a Kafka transaction manager.");
			}
			guardAfterRollbackProcessor(name, factory, probe, probe(name, factory));
		}
	}

	private static boolean isShareGroupFactory(Object factory) {
		for (Class<?> type = factory.getClass(); type != null; type = type.getSuperclass()) {
			if (SHARE_FACTORY.equals(type.getName())) {
				return true;
			}
		}
		return false;
	}

	/** A container of the factory, with its settings and container customizer applied; never started. */
	private static AbstractMessageListenerContainer<?, ?> probe(String name,
			AbstractKafkaListenerContainerFactory<?, ?, ?> factory) {
		try {
			return factory.createContainer(PROBE_TOPIC);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Container factory '" + name + "' could not build a container to check"
					+ " its error handling (a container that is never started, for topic '" + PROBE_TOPIC + "'; its"
					+ " container customizer runs on it): " + ex, ex);
		}
	}

	private void guardErrorHandler(String name, AbstractKafkaListenerContainerFactory<?, ?, ?> factory,
			AbstractMessageListenerContainer<?, ?> probe) {
		CommonErrorHandler handler = probe.getCommonErrorHandler();
		if (handler == null) {
			CommonErrorHandler given = this.beanFactory.getBeanProvider(CommonErrorHandler.class).getIfUnique();
			if (given == null) {
				throw new IllegalStateException("Container factory '" + name + "' has no error handler, and there is"
						+ " no single CommonErrorHandler bean to give it (none, or several and none @Primary; the starter's"
						+ " needs a KafkaOperations bean):"
						+ " spring-kafka's default would retry a failing record and then drop it. Define a"
						+ " KafkaTemplate bean (the starter's handler then dead-letters), or set an error handler bean"
						+ " on the factory.");
			}
			factory.setCommonErrorHandler(given);
			logger.info("Container factory '{}' had no error handler; it now uses the application's ({})", name,
					given.getClass().getName());
			requireRestoredSeeks(name, given);
			warnIfBuiltWithoutTheStarter(name, given);
		}
		else if (!isBean(CommonErrorHandler.class, handler)) {
			throw new IllegalStateException("Container factory '" + name + "' has its own error handler ("
					+ handler.getClass().getName() + ") that is not a bean: the starter cannot see where it sends"
					+ " records after their retries (spring-kafka's default recoverer logs and drops them). Remove it"
					+ " from the factory to get the starter's, which dead-letters; or build it as a @Bean with"
					+ " IdempotentErrorHandlers (handlers.errorHandler(yourRecoverer, yourBackOff)) and set that bean"
					+ " on the factory; see docs/adopting.md, 'Keep your error handler'.");
		}
		else {
			requireRestoredSeeks(name, handler);
			warnIfBuiltWithoutTheStarter(name, handler);
		}
	}

	/**
	 * With offsets stored with the claims, the error handler must restore the seeks to stored offsets after its own:
	 * another handler's seek, to the records of the poll as it came, would skip records a database failover lost.
	 */
	private void requireRestoredSeeks(String name, Object handler) {
		if (this.beanFactory.getBeanProvider(StoredOffsets.class).getIfAvailable() == null
				|| handler instanceof TransientAwareErrorHandler || handler instanceof TransientAwareAfterRollbackProcessor) {
			return;
		}
		throw new IllegalStateException("Container factory '" + name + "' uses an error handler ("
				+ handler.getClass().getName() + ") not built with IdempotentErrorHandlers, which"
				+ " idempotent.offsets.enabled=true needs: after a database failover the consumer seeks back to the"
				+ " stored offsets, and another handler's seek to a failed delivery's records would skip the records the"
				+ " database lost. Build it with handlers.errorHandler(yourRecoverer, yourBackOff) (or"
				+ " handlers.afterRollbackProcessor(...)), see docs/adopting.md, 'Keep your error handler'; or set"
				+ " idempotent.offsets.enabled=false.");
	}

	private void warnIfBuiltWithoutTheStarter(String name, CommonErrorHandler handler) {
		IdempotentErrorHandlers handlers = this.beanFactory.getBeanProvider(IdempotentErrorHandlers.class).getIfUnique();
		if (handlers != null && (handlers.built(handler) || handlers.recoverersWrapped())) {
			return;
		}
		logger.warn("Container factory '{}' uses the application's error handler ({}), built without"
				+ " IdempotentErrorHandlers: unless its recoverer is wrapped by it, a record it gives up on is not"
				+ " marked FAILED in the claim table and carries no scope and key headers to the dead-letter topic, and"
				+ " a database outage uses up its retries. Build it with handlers.errorHandler(yourRecoverer,"
				+ " yourBackOff); see docs/adopting.md, 'Keep your error handler'.", name, handler.getClass().getName());
	}

	private void guardAfterRollbackProcessor(String name, AbstractKafkaListenerContainerFactory<?, ?, ?> factory,
			AbstractMessageListenerContainer<?, ?> probe, AbstractMessageListenerContainer<?, ?> secondProbe) {
		AfterRollbackProcessor<?, ?> processor = probe.getAfterRollbackProcessor();
		if (isBean(AfterRollbackProcessor.class, processor)) {
			requireRestoredSeeks(name, processor);
			classify(processor);
			return;
		}
		if (processor == secondProbe.getAfterRollbackProcessor()) {
			throw notABean(name, processor);
		}
		AfterRollbackProcessor<?, ?> given = this.beanFactory.getBeanProvider(AfterRollbackProcessor.class).getIfUnique();
		if (given == null) {
			throw new IllegalStateException("Container factory '" + name + "' has a Kafka transaction manager and"
					+ " spring-kafka's default after-rollback processor, which retries a failing record and then"
					+ " drops it, and there is no single AfterRollbackProcessor bean to give it (none, or several and"
					+ " none @Primary; the starter's needs a KafkaOperations bean). Define a KafkaTemplate bean, or set an after-rollback processor bean on"
					+ " the factory.");
		}
		setAfterRollbackProcessor(factory, given);
		AfterRollbackProcessor<?, ?> customized = probe(name, factory).getAfterRollbackProcessor();
		if (customized != given) {
			// a new processor per container (spring-kafka's default, or one the container customizer creates) is
			// told apart only here: the customizer replaces the one set on the factory
			throw notABean(name, customized);
		}
		requireRestoredSeeks(name, given);
		logger.info("Container factory '{}' has a Kafka transaction manager and had spring-kafka's default"
				+ " after-rollback processor; it now uses the application's ({})", name, given.getClass().getName());
	}

	private static IllegalStateException notABean(String name, AfterRollbackProcessor<?, ?> processor) {
		return new IllegalStateException("Container factory '" + name + "' has a Kafka transaction manager and its"
				+ " own after-rollback processor (" + processor.getClass().getName() + ") that is not a bean (set on"
				+ " the factory, or by its container customizer): the starter cannot see where it sends records after"
				+ " their retries (spring-kafka's default logs and drops them). Remove it from the factory to get the"
				+ " starter's, which dead-letters; or build it as a @Bean with IdempotentErrorHandlers"
				+ " (handlers.afterRollbackProcessor(yourRecoverer, yourBackOff, kafkaTemplate)) and set that bean on"
				+ " the factory; see docs/adopting.md, 'Keep your error handler'.");
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static void setAfterRollbackProcessor(AbstractKafkaListenerContainerFactory factory,
			AfterRollbackProcessor processor) {
		factory.setAfterRollbackProcessor(processor);
	}

	/**
	 * The container's Kafka transaction manager: the one set with {@code setKafkaAwareTransactionManager}, or a
	 * Kafka-aware one set with the deprecated {@code setTransactionManager} (which spring-kafka still uses).
	 */
	@SuppressWarnings("removal")
	static @Nullable KafkaAwareTransactionManager<?, ?> kafkaTransactionManager(ContainerProperties properties) {
		if (properties.getKafkaAwareTransactionManager() != null) {
			return properties.getKafkaAwareTransactionManager();
		}
		return (properties.getTransactionManager() instanceof KafkaAwareTransactionManager<?, ?> kafka) ? kafka : null;
	}

	private boolean isBean(Class<?> type, Object candidate) {
		for (Object bean : this.beanFactory.getBeansOfType(type, false, false).values()) {
			if (bean == candidate) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The classification {@link ErrorHandlerClassifier} gives {@code DefaultErrorHandler} beans, for an
	 * application's after-rollback processor: a bad key or a late record is the same on every attempt.
	 */
	private static void classify(AfterRollbackProcessor<?, ?> processor) {
		if (processor instanceof FailedRecordProcessor failed) {
			ErrorHandlerClassifier.classify(failed);
		}
	}

}
