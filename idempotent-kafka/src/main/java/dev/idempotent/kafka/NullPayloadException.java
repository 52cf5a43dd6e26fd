package dev.idempotent.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.support.serializer.SerializationUtils;

/**
 * A record of a batch arrived as a {@code null} element of the method's list of payloads (a tombstone, or a record
 * that an {@code ErrorHandlingDeserializer} or the message converter could not read) and the method does not
 * accept {@code null} elements (declare {@code List<@Nullable T>} to receive them). It is that record's own failure:
 * not retried (the same record gives the same {@code null}), dead-lettered alone with the reason
 * {@value IdempotencyHeaders#NULL_PAYLOAD}; the other records of the batch are processed.
 *
 * @since 0.1.0
 */
public class NullPayloadException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create the failure of one record.
	 * @param record the record whose payload is {@code null}
	 * @param method the listener method, for the message
	 */
	public NullPayloadException(ConsumerRecord<?, ?> record, String method) {
		super("Record " + record.topic() + "-" + record.partition() + "@" + record.offset() + " has a null payload in"
				+ " the batch of " + method + " (" + why(record) + "); declare List<@Nullable T> to receive null"
				+ " payloads");
	}

	private static String why(ConsumerRecord<?, ?> record) {
		if (record.headers().lastHeader(SerializationUtils.VALUE_DESERIALIZER_EXCEPTION_HEADER) != null) {
			return "its value could not be deserialized or converted";
		}
		return (record.value() == null) ? "a tombstone: its value is null" : "its value was converted to null";
	}

}
