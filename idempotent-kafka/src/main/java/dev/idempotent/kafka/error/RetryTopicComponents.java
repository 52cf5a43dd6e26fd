package dev.idempotent.kafka.error;

import java.time.Clock;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.retention.LateRecordException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
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
 * {@code idempotent-key} for failed work. A record an {@code ErrorHandlingDeserializer} could not read is published
 * with its original bytes through the {@link DeadLetterTemplates#forBytes() byte[] template}, as by the starter's
 * error handler.
 * <p>Used when the application defines no {@code RetryTopicComponentFactory} and no
 * {@code RetryTopicConfigurationSupport} of its own; an application with its own support class adds the two
 * exceptions in {@code manageNonBlockingFatalExceptions} and the headers in
 * {@code configureDeadLetterPublishingContainerFactory}.
 *
 * @since 0.1.0
 */
public class RetryTopicComponents extends RetryTopicComponentFactory {

	private final Supplier<@Nullable DeadLetterTemplates> deadLetterTemplates;

	/**
	 * Create the components.
	 * @param deadLetterTemplates the templates of the starter's dead-letter publishing, or a supplier of
	 * {@code null} for none; asked when the first retry container is created
	 */
	public RetryTopicComponents(Supplier<@Nullable DeadLetterTemplates> deadLetterTemplates) {
		this.deadLetterTemplates = deadLetterTemplates;
	}

	@Override
	public DestinationTopicResolver destinationTopicResolver() {
		return new FatalBadKeysResolver(internalRetryTopicClock());
	}

	@Override
	public DeadLetterPublishingRecovererFactory deadLetterPublishingRecovererFactory(
			DestinationTopicResolver destinationTopicResolver) {
		DeadLetterPublishingRecovererFactory factory = super.deadLetterPublishingRecovererFactory(destinationTopicResolver);
		factory.setHeadersFunction(new DeadLetterHeaders());
		factory.setDeadLetterPublisherCreator((templates, destinations) -> new DeadLetterPublishingRecoverer(
				(record) -> templateFor(record, templates), destinations));
		return factory;
	}

	/**
	 * The template of a record to publish: for {@code byte[]} values (records an {@code ErrorHandlingDeserializer}
	 * could not read, published with their original bytes), one with a {@code ByteArraySerializer} for values,
	 * which the application's value serializer may not be; else the one spring-kafka chose.
	 */
	private KafkaOperations<?, ?> templateFor(ProducerRecord<?, ?> record,
			Function<ProducerRecord<?, ?>, ? extends KafkaOperations<?, ?>> templates) {
		if (record.value() instanceof byte[]) {
			DeadLetterTemplates deadLetters = this.deadLetterTemplates.get();
			KafkaOperations<?, ?> bytes = (deadLetters != null) ? deadLetters.forBytes() : null;
			if (bytes != null) {
				return bytes;
			}
		}
		return templates.apply(record);
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
