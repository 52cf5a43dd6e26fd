package dev.idempotent.kafka.error;

import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.kafka.NullPayloadException;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.retention.LateRecordException;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.FailedRecordProcessor;

/**
 * Classifies {@link InvalidIdempotencyKeyException}, {@link LateRecordException}, {@link NullPayloadException} and
 * {@link OutputRejectedException} as not retryable on every
 * {@link DefaultErrorHandler} bean, the application's own included: the same record yields the same bad key on
 * every attempt, a late record only gets older, and a null payload stays null. It changes nothing else about the application's handler.
 *
 * @since 0.1.0
 */
public final class ErrorHandlerClassifier implements BeanPostProcessor {

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof DefaultErrorHandler handler) {
			classify(handler);
		}
		return bean;
	}

	/**
	 * Classify what retrying cannot fix as not retryable on a handler or an after-rollback processor: a bad key, a
	 * late record, a null payload, an output the producer refused for good.
	 * @param processor the handler or processor
	 * @param <P> its type
	 * @return {@code processor}
	 */
	public static <P extends FailedRecordProcessor> P classify(P processor) {
		processor.addNotRetryableExceptions(InvalidIdempotencyKeyException.class, LateRecordException.class,
				NullPayloadException.class, OutputRejectedException.class);
		return processor;
	}

}
