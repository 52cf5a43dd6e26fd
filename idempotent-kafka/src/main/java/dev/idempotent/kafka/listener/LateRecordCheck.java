package dev.idempotent.kafka.listener;

import java.time.Instant;
import java.util.function.Supplier;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.retention.LateRecordGuard;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Applies the {@link LateRecordGuard} to a Kafka record before its claim: the record's timestamp (none if the
 * record has no timestamp) and its {@code topic-partition@offset} for the log line.
 */
final class LateRecordCheck {

	private final Supplier<LateRecordGuard> guard;

	LateRecordCheck(Supplier<LateRecordGuard> guard) {
		this.guard = guard;
	}

	/**
	 * Check a record about to be claimed.
	 * @throws dev.idempotent.retention.LateRecordException if it is late and late records are dead-lettered
	 */
	void check(ClaimRequest request, ConsumerRecord<?, ?> record) {
		Instant time = (record.timestamp() >= 0) ? Instant.ofEpochMilli(record.timestamp()) : null;
		this.guard.get().check(request, record.topic() + "-" + record.partition() + "@" + record.offset(), time);
	}

}
