package dev.idempotent.kafka.method;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/**
 * The key is the value of a producer-set header, by default {@code idempotency-key}.
 *
 * @param headerName the header's name
 */
record HeaderKeySource(String headerName) implements KeySource {

	@Override
	public byte @Nullable [] rawKey(ConsumerRecord<?, ?> record, @Nullable Object[] arguments) {
		Header header = record.headers().lastHeader(this.headerName);
		return (header != null) ? header.value() : null;
	}

	/** The header is read from the record: the arguments do not matter. */
	@Override
	public @Nullable Object[] argumentsOf(ConsumerRecord<?, ?> polled, @Nullable Object[] delivered) {
		return delivered;
	}

	@Override
	public String description() {
		return "header '" + this.headerName + "'";
	}

}
