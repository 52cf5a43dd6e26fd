package dev.idempotent.kafka.support;

import java.util.function.Supplier;

import dev.idempotent.kafka.offset.StoredOffsets;
import dev.idempotent.kafka.offset.StoredOffsetsRebalanceListener;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.CompositeBatchInterceptor;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.listener.adapter.RecordFilterStrategy;

/**
 * Adds the {@link CurrentRecordInterceptor} to every listener container factory bean, as its record and its
 * batch interceptor, after the application's own ones if it has them (Spring Boot sets a single interceptor bean
 * of each kind on its factory; this composes with them and never displaces them). The binding runs last so that it sees the record the
 * listener will see. A record filter set on the factory is decorated so that a batch listener of payloads is
 * matched to the records the filter kept ({@code @KafkaListener(filter = ...)} on such a listener is refused at
 * startup instead). With offsets stored with the claims, the interceptor skips records fetched before a seek to a stored
 * offset, and the factory's rebalance listener seeks each assigned partition to its stored offset.
 *
 * @since 0.1.0
 */
public final class CurrentRecordInstaller implements BeanPostProcessor {

	private final @Nullable Supplier<StoredOffsets> offsets;

	/** Create an installer of interceptors that deliver every record. */
	public CurrentRecordInstaller() {
		this(null);
	}

	/**
	 * Create an installer.
	 * @param offsets the offsets stored with the claims, or {@code null} when offsets are not stored with the claims;
	 * with them, each factory's rebalance listener also tells them of assigned and lost partitions (calling the
	 * application's own after)
	 * @since 0.1.0
	 */
	public CurrentRecordInstaller(@Nullable Supplier<StoredOffsets> offsets) {
		this.offsets = offsets;
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractKafkaListenerContainerFactory factory) {
			RecordInterceptor existing = ListenerInterceptors.record(factory);
			if (existing instanceof CurrentRecordInterceptor) {
				return bean;
			}
			CurrentRecordInterceptor binding = new CurrentRecordInterceptor<>(this.offsets);
			if (this.offsets != null) {
				ContainerProperties properties = factory.getContainerProperties();
				if (properties.isAsyncAcks()) {
					throw new IllegalStateException("Listener container factory '" + beanName + "' acknowledges"
							+ " asynchronously (asyncAcks), which idempotent.offsets.enabled=true does not support: a"
							+ " record skipped after a seek to a stored offset is never acknowledged and the consumer"
							+ " stays paused. Turn asyncAcks off on this factory or set idempotent.offsets.enabled=false.");
				}
				properties.setConsumerRebalanceListener(
						new StoredOffsetsRebalanceListener(this.offsets, properties.getConsumerRebalanceListener()));
			}
			factory.setRecordInterceptor((existing != null) ? new CompositeRecordInterceptor(existing, binding)
					: binding);
			BatchInterceptor existingBatch = ListenerInterceptors.batch(factory);
			factory.setBatchInterceptor((existingBatch != null) ? new CompositeBatchInterceptor(existingBatch, binding)
					: binding);
			decorateRecordFilter(factory);
		}
		return bean;
	}

	/**
	 * Decorate the factory's record filter, if it has one. The factory has no getter for it, so its field is read;
	 * should that fail, a batch listener of payloads behind the filter fails each batch with a message instead.
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static void decorateRecordFilter(AbstractKafkaListenerContainerFactory factory) {
		Object filter;
		try {
			filter = new DirectFieldAccessor(factory).getPropertyValue("recordFilterStrategy");
		}
		catch (BeansException ex) {
			return;
		}
		if (filter instanceof RecordFilterStrategy strategy && !(filter instanceof FilteredBatchBinding)) {
			factory.setRecordFilterStrategy(new FilteredBatchBinding<>(strategy));
		}
	}

}
