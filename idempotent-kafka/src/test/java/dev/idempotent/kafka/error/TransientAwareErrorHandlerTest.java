package dev.idempotent.kafka.error;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

/**
 * The back-off of the starter's error handler stays its first retry listener when an application sets listeners of
 * its own (a bean post-processor adding metrics, say): replaced, it would take every failure for a transient one and
 * retry a failing record forever instead of dead-lettering it.
 */
class TransientAwareErrorHandlerTest {

	private final AtomicInteger recovered = new AtomicInteger();

	private final AtomicInteger seenByTheApplication = new AtomicInteger();

	@Test
	void aFailingRecordIsRecoveredAfterItsRetriesAlthoughTheApplicationSetItsOwnRetryListener() {
		TransientAwareErrorHandler handler = new TransientAwareErrorHandler((record, ex) -> this.recovered.incrementAndGet(),
				new TransientAwareBackOff(new FixedBackOff(0, 2), new FixedBackOff(0, FixedBackOff.UNLIMITED_ATTEMPTS)));
		handler.setRetryListeners(applicationListener());

		assertThat(attemptsUntilRecovered(handler)).isEqualTo(3);
		assertThat(this.recovered).hasValue(1);
		assertThat(this.seenByTheApplication).as("the application's listener is called too").hasValue(3);
	}

	/**
	 * A whole batch that fails while the database is down is retried, even with no retries for failures of records
	 * and after an earlier record of the thread failed for good: spring-kafka asks the back-off for the first interval
	 * of a batch's retries before it tells the retry listeners of the failure.
	 */
	@Test
	void aWholeBatchFailingWhileTheDatabaseIsDownIsRetriedNotRecovered() {
		TransientAwareBackOff backOff = new TransientAwareBackOff(new FixedBackOff(0, 0),
				new FixedBackOff(0, FixedBackOff.UNLIMITED_ATTEMPTS));
		TransientAwareErrorHandler handler = new TransientAwareErrorHandler(
				(record, ex) -> this.recovered.incrementAndGet(), backOff);
		ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 0, 7, "k", "v");
		backOff.failedDelivery(record, new IllegalStateException("broken"), 1); // an earlier record's own failure
		ConsumerRecords<String, String> batch = new ConsumerRecords<>(
				Map.of(new TopicPartition("orders", 0), List.of(record)));
		@SuppressWarnings("unchecked")
		Consumer<String, String> consumer = mock(Consumer.class);
		MessageListenerContainer container = mock(MessageListenerContainer.class); // stops during the retries

		assertThatExceptionOfType(KafkaException.class).isThrownBy(() -> handler.handleBatch(
				new IllegalStateException("wrapped", new TransientDataAccessResourceException("down")), batch, consumer,
				container, () -> {
				}))
			.withMessageContaining("stopped during retries");
		assertThat(this.recovered).as("not dead-lettered").hasValue(0);
	}

	/** Deliver one failing record to the handler until it is recovered, at most 20 times. */
	private int attemptsUntilRecovered(TransientAwareErrorHandler handler) {
		ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 0, 7, "k", "v");
		@SuppressWarnings("unchecked")
		Consumer<String, String> consumer = mock(Consumer.class);
		MessageListenerContainer container = mock(MessageListenerContainer.class);
		for (int attempt = 1; attempt <= 20; attempt++) {
			try {
				if (handler.handleOne(new IllegalStateException("ledger closed"), record, consumer, container)) {
					return attempt;
				}
			}
			catch (RuntimeException inRetry) {
				// not recovered yet: spring-kafka signals a retry by throwing
			}
		}
		return -1;
	}

	private RetryListener applicationListener() {
		return new RetryListener() {
			@Override
			public void failedDelivery(ConsumerRecord<?, ?> record, Exception ex, int deliveryAttempt) {
				TransientAwareErrorHandlerTest.this.seenByTheApplication.incrementAndGet();
			}
		};
	}

}
