package dev.idempotent.kafka.support;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.support.serializer.SerializationUtils;

/**
 * The failure of spring-kafka's {@code ErrorHandlingDeserializer} to read a record's value or key, which it passes on
 * as a {@code null} with the exception in a header (or, for some deserializers, as the exception itself). spring-kafka
 * throws it before a record listener runs, and not on its batch path: a group commit, which receives the poll as a
 * batch, looks for it the same way. Stateless.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class DeserializationFailures {

	private static final LogAccessor logger = new LogAccessor(DeserializationFailures.class);

	private DeserializationFailures() {
	}

	/**
	 * The failure to read a record's value or key, if there was one.
	 * @param record a polled record
	 * @return the failure (the value's first), or {@code null} if the record was read
	 */
	public static @Nullable DeserializationException of(ConsumerRecord<?, ?> record) {
		if (record.value() instanceof DeserializationException failure) {
			return failure;
		}
		if (record.key() instanceof DeserializationException failure) {
			return failure;
		}
		DeserializationException failure = (record.value() == null) ? SerializationUtils.getExceptionFromHeader(record,
				SerializationUtils.VALUE_DESERIALIZER_EXCEPTION_HEADER, logger) : null;
		if (failure == null && record.key() == null) {
			failure = SerializationUtils.getExceptionFromHeader(record,
					SerializationUtils.KEY_DESERIALIZER_EXCEPTION_HEADER, logger);
		}
		return failure;
	}

}
