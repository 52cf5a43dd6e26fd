package dev.idempotent.producer;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/** An application's own producer interceptor: counts the records it sees, to prove it is kept. */
public class CountingProducerInterceptor implements ProducerInterceptor<Object, Object> {

	static final AtomicInteger sent = new AtomicInteger();

	@Override
	public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
		sent.incrementAndGet();
		return record;
	}

	@Override
	public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
	}

	@Override
	public void close() {
	}

	@Override
	public void configure(Map<String, ?> configs) {
	}

}
