package dev.idempotent.kafka;

import java.time.Clock;
import java.util.Map;

import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.retention.LateRecordException;

import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.DefaultDestinationTopicResolver;
import org.springframework.kafka.retrytopic.DestinationTopicResolver;
import org.springframework.kafka.retrytopic.RetryTopicComponentFactory;

/**
 * The components of {@code @RetryableTopic} non-blocking retries, as spring-kafka makes them, with two changes
 * for idempotent listeners. A bad key ({@link InvalidIdempotencyKeyException}) or a late record
 * ({@link LateRecordException}) is fatal: it goes to the {@code -dlt} topic at once instead of through every retry
 * topic, as with the starter's error handler (spring-kafka's retry topics give their containers an error handler of
 * their own, which is not a bean, so {@link ErrorHandlerClassifier} cannot reach it). And every record those
 * containers publish (to a retry topic or the {@code -dlt} topic) carries the {@link DeadLetterHeaders}:
 * {@code idempotent-rejection-reason} and {@code -message} for a bad key, {@code idempotent-scope} and
 * {@code idempotent-key} for failed work.
 * <p>Used when the application defines no {@code RetryTopicComponentFactory} and no
 * {@code RetryTopicConfigurationSupport} of its own; an application with its own support class adds the two
 * exceptions in {@code manageNonBlockingFatalExceptions} and the headers in
 * {@code configureDeadLetterPublishingContainerFactory}.
 *
 * @since 0.1.0
 */
public class RetryTopicComponents extends RetryTopicComponentFactory {

	@Override
	public DestinationTopicResolver destinationTopicResolver() {
		return new FatalBadKeysResolver(internalRetryTopicClock());
	}

	@Override
	public DeadLetterPublishingRecovererFactory deadLetterPublishingRecovererFactory(
			DestinationTopicResolver destinationTopicResolver) {
		DeadLetterPublishingRecovererFactory factory = super.deadLetterPublishingRecovererFactory(destinationTopicResolver);
		factory.setHeadersFunction(new DeadLetterHeaders());
		return factory;
	}

	/**
	 * Keeps bad keys and late records fatal when spring-kafka sets the resolver's fatal exceptions (it replaces
	 * them all after creating the resolver).
	 */
	private static final class FatalBadKeysResolver extends DefaultDestinationTopicResolver {

		FatalBadKeysResolver(Clock clock) {
			super(clock);
			addNotRetryableExceptions(InvalidIdempotencyKeyException.class, LateRecordException.class);
		}

		@Override
		public void setClassifications(Map<Class<? extends Throwable>, Boolean> classifications, boolean defaultValue) {
			super.setClassifications(classifications, defaultValue);
			addNotRetryableExceptions(InvalidIdempotencyKeyException.class, LateRecordException.class);
		}

	}

}
