package dev.idempotent.kafka.error;

import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.kafka.NullPayloadException;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.retention.LateRecordException;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;

/**
 * Classifies {@link InvalidIdempotencyKeyException}, {@link LateRecordException} and {@link NullPayloadException}
 * as not retryable on every
 * {@link DefaultErrorHandler} bean, the application's own included: the same record yields the same bad key on
 * every attempt, a late record only gets older, and a null payload stays null. It changes nothing else about the application's handler.
 *
 * @since 0.1.0
 */
public final class ErrorHandlerClassifier implements BeanPostProcessor {

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof DefaultErrorHandler handler) {
			handler.addNotRetryableExceptions(InvalidIdempotencyKeyException.class, LateRecordException.class,
					NullPayloadException.class, OutputRejectedException.class);
		}
		return bean;
	}

}
