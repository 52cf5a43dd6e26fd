package dev.idempotent.kafka;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Adds the {@link RecordCapturingInterceptor} to every listener container factory bean, after the
 * application's own {@link RecordInterceptor} if it has one (Spring Boot sets a single interceptor bean on its
 * factory; this composes with it and never displaces it). The capture runs last so that it sees the record the
 * listener will see.
 *
 * @since 0.1.0
 */
public final class RecordCaptureInstaller implements BeanPostProcessor {

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractKafkaListenerContainerFactory factory) {
			RecordInterceptor existing = factory.getRecordInterceptor();
			if (existing instanceof RecordCapturingInterceptor) {
				return bean;
			}
			RecordInterceptor capture = new RecordCapturingInterceptor<>();
			factory.setRecordInterceptor((existing != null) ? new CompositeRecordInterceptor(existing, capture)
					: capture);
		}
		return bean;
	}

}
