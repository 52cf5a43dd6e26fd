package dev.idempotent.kafka.error;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import dev.idempotent.claim.FailureRecorder;
import dev.idempotent.key.KeyMasker;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.BackOff;

/**
 * Builds error handlers that keep the starter's failure guarantees, for an application that brings its own error
 * handling: a record whose retries are spent gets the library's dead-letter headers (its scope and key, or why its
 * key was rejected) and its key is marked FAILED, so that a replay processes it once; a bad key, a late record or a
 * null payload is recovered at once; a database outage is retried until it passes, never dead-lettered. The starter
 * registers one as a bean, and its own error handler and after-rollback processor are built by it.
 * <p>With the application's recoverer and back-off (docs/adopting.md, "Keep your error handler"):
 * <pre class="code">
 * &#64;Bean
 * DefaultErrorHandler errorHandler(IdempotentErrorHandlers handlers, KafkaTemplate&lt;Object, Object&gt; template) {
 *     return handlers.errorHandler(new DeadLetterPublishingRecoverer(template), new FixedBackOff(1000L, 3));
 * }
 * </pre>
 * An application that must keep its own handler type wraps only its recoverer with {@link #recoverer} (its own
 * back-off then decides, a database outage included). A handler must be a bean to be accepted on a container factory
 * of an {@code @IdempotentListener}.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public final class IdempotentErrorHandlers {

	private final DeadLetterTemplates deadLetterTemplates;

	private final FailureRecorder failureRecorder;

	private final KeyMasker masker;

	private final String deadLetterSuffix;

	private final BackOff backOff;

	private final BackOff untilItPasses;

	/** The recoverers given the library's headers, so that a second wrap does not add them twice. */
	private final Set<DeadLetterPublishingRecoverer> withHeaders = Collections.newSetFromMap(new IdentityHashMap<>());

	/** The handlers and processors this builder built, to tell them at startup from ones built without it. */
	private final Set<Object> built = Collections.newSetFromMap(new IdentityHashMap<>());

	/** Whether the application wrapped a recoverer of its own, for a handler this builder did not build. */
	private volatile boolean recoverersWrapped;

	/**
	 * Create the builder.
	 * @param deadLetterTemplates the templates the starter's dead-letter recoverer publishes with
	 * @param failureRecorder marks keys FAILED
	 * @param masker renders keys in log lines
	 * @param deadLetterSuffix the suffix of the starter's dead-letter topics ({@code .DLT})
	 * @param backOff the back-off of failures that are not transient, when the application gives none
	 * @param untilItPasses the back-off of transient failures (a database outage), which never runs out
	 */
	public IdempotentErrorHandlers(DeadLetterTemplates deadLetterTemplates, FailureRecorder failureRecorder,
			KeyMasker masker, String deadLetterSuffix, BackOff backOff, BackOff untilItPasses) {
		this.deadLetterTemplates = deadLetterTemplates;
		this.failureRecorder = failureRecorder;
		this.masker = masker;
		this.deadLetterSuffix = deadLetterSuffix;
		this.backOff = backOff;
		this.untilItPasses = untilItPasses;
	}

	/**
	 * The starter's error handler: retries with the configured back-off, then publishes to
	 * {@code <topic><dead-letter-suffix>} and marks the key FAILED.
	 * @return a new handler
	 */
	public DefaultErrorHandler errorHandler() {
		return handler(deadLetters(), this.backOff);
	}

	/**
	 * An error handler with the application's recoverer and back-off, and the starter's guarantees around them.
	 * @param recoverer what the application does with a record whose retries are spent, e.g. its
	 * {@code DeadLetterPublishingRecoverer}; wrapped as {@link #recoverer} does
	 * @param backOff the back-off of failures that are not transient; transient ones wait until they pass
	 * @return a new handler; the application may configure it further (retry listeners, more not-retryable exceptions)
	 */
	public DefaultErrorHandler errorHandler(ConsumerRecordRecoverer recoverer, BackOff backOff) {
		return handler(wrap(recoverer), backOff);
	}

	private DefaultErrorHandler handler(ConsumerRecordRecoverer recoverer, BackOff backOff) {
		return remember(ErrorHandlerClassifier.classify(new TransientAwareErrorHandler(recoverer,
				new TransientAwareBackOff(backOff, this.untilItPasses))));
	}

	/**
	 * The starter's after-rollback processor, for containers with a Kafka transaction manager: as
	 * {@link #errorHandler()}, the recovered record's offset committed in the Kafka transaction that dead-lettered it.
	 * @param kafkaOperations the transactional template
	 * @param <K> the key type
	 * @param <V> the value type
	 * @return a new processor
	 */
	public <K, V> DefaultAfterRollbackProcessor<K, V> afterRollbackProcessor(KafkaOperations<?, ?> kafkaOperations) {
		return processor(deadLetters(), this.backOff, kafkaOperations);
	}

	/**
	 * An after-rollback processor with the application's recoverer and back-off, and the starter's guarantees.
	 * @param recoverer what the application does with a record whose retries are spent; wrapped as {@link #recoverer}
	 * does
	 * @param backOff the back-off of failures that are not transient
	 * @param kafkaOperations the transactional template
	 * @param <K> the key type
	 * @param <V> the value type
	 * @return a new processor
	 */
	public <K, V> DefaultAfterRollbackProcessor<K, V> afterRollbackProcessor(ConsumerRecordRecoverer recoverer,
			BackOff backOff, KafkaOperations<?, ?> kafkaOperations) {
		return processor(wrap(recoverer), backOff, kafkaOperations);
	}

	private <K, V> DefaultAfterRollbackProcessor<K, V> processor(ConsumerRecordRecoverer recoverer, BackOff backOff,
			KafkaOperations<?, ?> kafkaOperations) {
		return remember(ErrorHandlerClassifier.classify(new TransientAwareAfterRollbackProcessor<>(recoverer,
				new TransientAwareBackOff(backOff, this.untilItPasses), kafkaOperations)));
	}

	private <T> T remember(T handler) {
		synchronized (this.built) {
			this.built.add(handler);
		}
		return handler;
	}

	/**
	 * The starter's dead-letter recoverer: publishes to {@code <topic><dead-letter-suffix>} (records an
	 * {@code ErrorHandlingDeserializer} could not read as their raw bytes) with the library's headers, then marks the
	 * key FAILED.
	 * @return a new recoverer
	 */
	public ConsumerRecordRecoverer deadLetterRecoverer() {
		this.recoverersWrapped = true;
		return deadLetters();
	}

	/** The starter's dead-letter recoverer, for its own handler and processor (which the application did not build). */
	private ConsumerRecordRecoverer deadLetters() {
		DeadLetterPublishingRecoverer deadLetters = new DeadLetterPublishingRecoverer(
				this.deadLetterTemplates.byValueType(),
				(record, ex) -> new TopicPartition(record.topic() + this.deadLetterSuffix, -1));
		deadLetters.setHeadersFunction(new DeadLetterHeaders());
		return new FailedClaimRecoverer(deadLetters, this.failureRecorder, this.masker);
	}

	/**
	 * Wrap the application's recoverer: a {@code DeadLetterPublishingRecoverer} gets the library's headers
	 * ({@link DeadLetterHeaders}, added to its own headers function), and once the recoverer has recovered a record,
	 * its key is marked FAILED ({@link FailedClaimRecoverer}).
	 * @param recoverer the application's recoverer
	 * @return the wrapped recoverer, never {@code null}; {@code recoverer} itself if it already is a
	 * {@link FailedClaimRecoverer}
	 */
	public ConsumerRecordRecoverer recoverer(ConsumerRecordRecoverer recoverer) {
		this.recoverersWrapped = true;
		return wrap(recoverer);
	}

	private ConsumerRecordRecoverer wrap(ConsumerRecordRecoverer recoverer) {
		if (recoverer instanceof FailedClaimRecoverer) {
			return recoverer;
		}
		if (recoverer instanceof DeadLetterPublishingRecoverer deadLetters) {
			synchronized (this.withHeaders) {
				if (this.withHeaders.add(deadLetters)) {
					deadLetters.addHeadersFunction(new DeadLetterHeaders());
				}
			}
		}
		return new FailedClaimRecoverer(recoverer, this.failureRecorder, this.masker);
	}

	/**
	 * Whether this builder built a handler or processor, for the startup check of the error handling of the
	 * container factories.
	 * @param handler a container factory's error handler or after-rollback processor
	 * @return whether one of this builder's methods returned it
	 */
	public boolean built(Object handler) {
		synchronized (this.built) {
			return this.built.contains(handler);
		}
	}

	/**
	 * Whether the application wrapped a recoverer with {@link #recoverer} or took {@link #deadLetterRecoverer}, for
	 * a handler of its own type that this builder could not build: the startup check then trusts it.
	 * @return whether it did
	 */
	public boolean recoverersWrapped() {
		return this.recoverersWrapped;
	}

}
