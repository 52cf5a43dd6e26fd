package dev.idempotent.capture;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer that hands every record sent on a thread with an open {@link Capture} to it, with the bytes its
 * {@link CapturingSerializer}s produced and the future of the broker's acknowledgment. Everything else is passed to
 * the wrapped producer unchanged. The first record sent on a thread that expects a {@link PendingReply} (none is open
 * under a claim there) is spring-kafka's reply: it is sent with the reply's stored bytes. Thread-safe as the wrapped
 * producer is.
 */
final class CapturingProducer<K, V> implements Producer<K, V> {

	private static final Logger logger = LoggerFactory.getLogger(CapturingProducer.class);

	private final Producer<K, V> delegate;

	CapturingProducer(Producer<K, V> delegate) {
		this.delegate = delegate;
	}

	@Override
	public Future<RecordMetadata> send(ProducerRecord<K, V> record) {
		return send(record, null);
	}

	@Override
	public Future<RecordMetadata> send(ProducerRecord<K, V> record, @Nullable Callback callback) {
		Capture capture = Capture.current();
		if (SerializedSlot.replaying()) {
			return this.delegate.send(record, callback);
		}
		if (capture == null) {
			PendingReply reply = PendingReply.take(record);
			return (reply != null) ? sendReply(record, callback, reply) : this.delegate.send(record, callback);
		}
		capture.beforeSend(record);
		SerializedSlot slot = SerializedSlot.open();
		try {
			Future<RecordMetadata> ack = this.delegate.send(record, callback);
			capture.sent(record, slot, ack, this.delegate);
			return ack;
		}
		finally {
			slot.close();
		}
	}

	/** Send spring-kafka's reply with the stored bytes, and wait for it if the reply waits. */
	private Future<RecordMetadata> sendReply(ProducerRecord<K, V> record, @Nullable Callback callback,
			PendingReply reply) {
		reply.addStoredHeaders(record);
		try {
			Future<RecordMetadata> ack;
			try (SerializedSlot slot = SerializedSlot.replayValue(reply.reply().value())) {
				ack = this.delegate.send(record, callback);
			}
			if (reply.awaits()) {
				this.delegate.flush(); // the reply is awaited on its own: do not let it linger
			}
			reply.awaitSent(ack);
			return ack;
		}
		catch (RuntimeException ex) {
			// spring-kafka neither logs a failed reply nor fails the record for it: the listener's wrapper does
			logger.error("A @SendTo reply to " + record.topic() + " was not sent or not acknowledged; its request"
					+ " fails and is retried, and the retry (a hit) sends the reply stored with its claim.", ex);
			PendingReply.failed(ex);
			throw ex;
		}
	}

	@Override
	public void initTransactions() {
		this.delegate.initTransactions();
	}

	@Override
	public void beginTransaction() {
		this.delegate.beginTransaction();
	}

	@Override
	public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
			ConsumerGroupMetadata groupMetadata) {
		this.delegate.sendOffsetsToTransaction(offsets, groupMetadata);
	}

	@Override
	public void commitTransaction() {
		this.delegate.commitTransaction();
	}

	@Override
	public void abortTransaction() {
		this.delegate.abortTransaction();
	}

	@Override
	public void registerMetricForSubscription(KafkaMetric metric) {
		this.delegate.registerMetricForSubscription(metric);
	}

	@Override
	public void unregisterMetricFromSubscription(KafkaMetric metric) {
		this.delegate.unregisterMetricFromSubscription(metric);
	}

	@Override
	public void flush() {
		this.delegate.flush();
	}

	@Override
	public List<PartitionInfo> partitionsFor(String topic) {
		return this.delegate.partitionsFor(topic);
	}

	@Override
	public Map<MetricName, ? extends Metric> metrics() {
		return this.delegate.metrics();
	}

	@Override
	public Uuid clientInstanceId(Duration timeout) {
		return this.delegate.clientInstanceId(timeout);
	}

	@Override
	public void close() {
		this.delegate.close();
	}

	@Override
	public void close(Duration timeout) {
		this.delegate.close(timeout);
	}

}
