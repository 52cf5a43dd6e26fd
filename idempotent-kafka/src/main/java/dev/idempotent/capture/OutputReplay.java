package dev.idempotent.capture;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Predicate;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputHeader;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.support.SendResult;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Sends the stored outputs of a claim again, in order, through the producer factory that sent them, whose serializers
 * the starter wraps: they return the stored bytes instead of serializing. On a thread where the container's Kafka transaction is
 * active on that factory, the sends join it (consume-process-produce: exactly once for {@code read_committed}
 * readers); a transactional factory without an active transaction sends in a transaction of its own. Thread-safe.
 */
final class OutputReplay {

	private final ProducerFactory<Object, Object> factory;

	private final KafkaTemplate<Object, Object> template;

	OutputReplay(ProducerFactory<Object, Object> factory) {
		this.factory = factory;
		this.template = new KafkaTemplate<>(factory);
	}

	/** Whether the container's Kafka transaction is active on this thread, on the factory that sends again. */
	boolean inKafkaTransaction() {
		return inKafkaTransaction(this.factory);
	}

	/** Whether the container's Kafka transaction is active on this thread, on a producer factory. */
	static boolean inKafkaTransaction(ProducerFactory<?, ?> factory) {
		return factory.transactionCapable() && TransactionSynchronizationManager.hasResource(factory);
	}

	/**
	 * Send again, in order, those of a claim's outputs that {@code mine} selects (not the reply), the first of them
	 * with the sequence number {@code firstSequence}; return the acknowledgments' futures, in order.
	 */
	List<Future<RecordMetadata>> resend(ClaimRequest claim, List<StoredOutput> outputs, int firstSequence,
			String keyHeader, Predicate<StoredOutput> mine) {
		if (this.factory.transactionCapable() && !TransactionSynchronizationManager.hasResource(this.factory)) {
			return this.template.executeInTransaction(
					(operations) -> sendAll(operations, claim, outputs, firstSequence, keyHeader, mine));
		}
		List<Future<RecordMetadata>> acks = sendAll(this.template, claim, outputs, firstSequence, keyHeader, mine);
		this.template.execute((producer) -> { // they are awaited at once: do not let them linger
			ProducerFlush.start(producer);
			return null;
		});
		return acks;
	}

	private static List<Future<RecordMetadata>> sendAll(KafkaOperations<Object, Object> operations, ClaimRequest claim,
			List<StoredOutput> outputs, int firstSequence, String keyHeader, Predicate<StoredOutput> mine) {
		List<Future<RecordMetadata>> acks = new ArrayList<>(outputs.size());
		for (int i = 0; i < outputs.size(); i++) {
			StoredOutput output = outputs.get(i);
			if (Replies.isReply(output) || !mine.test(output)) {
				continue; // spring-kafka sends the reply to the request at hand
			}
			RecordHeaders headers = new RecordHeaders();
			for (OutputHeader header : SendingFactory.sent(output.headers())) {
				headers.add(header.name(), header.value());
			}
			if (headers.lastHeader(keyHeader) == null) {
				headers.add(keyHeader, Capture.outputKey(claim, firstSequence + i));
			}
			ProducerRecord<Object, Object> record = new ProducerRecord<>(output.topic(), output.partition(), null, null,
					null, headers);
			try (SerializedSlot slot = SerializedSlot.replay(output.key(), output.value())) {
				acks.add(operations.send(record).thenApply(SendResult::getRecordMetadata));
			}
		}
		return acks;
	}

}
