package dev.idempotent.kafka.startup;

import java.util.Map;
import java.util.function.Supplier;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.method.KafkaEndpoint;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.method.ListenerMethods;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;

/**
 * Refuses, at startup, an {@link IdempotentListener} whose consumer has {@code enable.auto.commit=true} (the
 * consumer would then commit offsets on its own schedule, before the claim's transaction commits, and a crash in
 * between would lose the record), or whose container has a database transaction manager (the claim would join a
 * transaction that commits after the offset can be committed). The setting is looked up where Spring Kafka takes it from: the listener's own
 * {@code @KafkaListener(properties)}, the container factory's container properties, then its consumer factory.
 *
 * @since 0.1.0
 */
public final class IdempotentListenerVerifier implements SmartInitializingSingleton {

	private static final String AUTO_COMMIT = "enable.auto.commit";

	private final Supplier<ListenerMethods> methods;

	private final BeanFactory beanFactory;

	/**
	 * Create the verifier.
	 * @param methods the resolved listener methods
	 * @param beanFactory looks up the container factories
	 */
	public IdempotentListenerVerifier(Supplier<ListenerMethods> methods, BeanFactory beanFactory) {
		this.methods = methods;
		this.beanFactory = beanFactory;
	}

	/**
	 * Verify every idempotent listener.
	 * @throws IllegalStateException naming the method when its consumer auto-commits offsets, or when it receives
	 * batches with per-record arguments that cannot be matched to their records
	 */
	@Override
	public void afterSingletonsInstantiated() {
		for (ListenerMethod method : this.methods.get().all()) {
			if (method.mode() == ClaimMode.LEASED) {
				// created on demand: fails here, at startup, when the claim store cannot hold leases
				this.beanFactory.getBean(LeasedClaimExecutor.class);
			}
			if (hasDatabaseTransactionManager(method.endpoint())) {
				throw new IllegalStateException("@IdempotentListener method " + method + " runs in a listener container"
						+ " with a transaction manager (ContainerProperties.setTransactionManager, deprecated in Spring"
						+ " Kafka): the claim would join its transaction, which commits after the offset can be"
						+ " committed. Remove it: the claim owns the database transaction.");
			}
			String batchProblem = method.endpoint().batchParameters().problem();
			if (batchProblem != null && deliversBatches(method.endpoint())) {
				throw new IllegalStateException("@IdempotentListener method " + method + " receives batches from container"
						+ " factory '" + method.endpoint().containerFactory() + "' but cannot be supported: " + batchProblem);
			}
			if ("true".equalsIgnoreCase(autoCommit(method.endpoint()))) {
				throw new IllegalStateException("@IdempotentListener method " + method + " runs on a consumer with "
						+ AUTO_COMMIT + "=true: offsets would be committed before the claim's transaction commits, and a"
						+ " crash in between would lose the record. Remove " + AUTO_COMMIT
						+ " (Spring Kafka then commits after processing).");
			}
		}
	}

	@SuppressWarnings("removal")
	private boolean hasDatabaseTransactionManager(KafkaEndpoint endpoint) {
		AbstractKafkaListenerContainerFactory<?, ?, ?> factory = factory(endpoint);
		if (factory == null) {
			return false;
		}
		Object manager = factory.getContainerProperties().getTransactionManager();
		return manager != null && !(manager instanceof KafkaAwareTransactionManager<?, ?>);
	}

	/** Whether the method receives batches: declared so (checked by KafkaEndpoint), or its factory is a batch one. */
	private boolean deliversBatches(KafkaEndpoint endpoint) {
		AbstractKafkaListenerContainerFactory<?, ?, ?> factory = factory(endpoint);
		return endpoint.batch() || (factory != null && Boolean.TRUE.equals(factory.isBatchListener()));
	}

	private @Nullable AbstractKafkaListenerContainerFactory<?, ?, ?> factory(KafkaEndpoint endpoint) {
		return (this.beanFactory.containsBean(endpoint.containerFactory())
				&& this.beanFactory.getBean(endpoint.containerFactory()) instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory)
				? factory : null;
	}

	private @Nullable String autoCommit(KafkaEndpoint endpoint) {
		String own = endpoint.consumerProperty(AUTO_COMMIT);
		if (own != null) {
			return own;
		}
		AbstractKafkaListenerContainerFactory<?, ?, ?> factory = factory(endpoint);
		if (factory == null) {
			return null;
		}
		Object containerLevel = factory.getContainerProperties().getKafkaConsumerProperties().get(AUTO_COMMIT);
		if (containerLevel != null) {
			return containerLevel.toString();
		}
		Map<String, Object> consumer = (factory.getConsumerFactory() != null)
				? factory.getConsumerFactory().getConfigurationProperties() : Map.of();
		Object value = consumer.get(AUTO_COMMIT);
		return (value != null) ? value.toString() : null;
	}

}
