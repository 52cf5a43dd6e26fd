package dev.idempotent.it;

import java.util.concurrent.locks.LockSupport;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Credits each record of {@code it.topic} in consumer group {@code it.group}, keyed by the idempotency-key
 * header. Two deterministic crash points for the crash tests: {@code crash.before-commit-of} stops the consumer
 * thread inside the transaction, after the ledger write; {@code crash.after-commit-of} stops it right after the
 * database commit, before the listener returns and so before the offset commit. Each prints a
 * {@code CRASH-POINT} line and parks the thread until the test kills the process.
 */
public class GroupLedgerListener {

	private final ItLedger ledger;

	private final String group;

	private final String beforeCommitOf;

	private final String afterCommitOf;

	public GroupLedgerListener(ItLedger ledger, @Value("${it.group}") String group,
			@Value("${crash.before-commit-of:}") String beforeCommitOf,
			@Value("${crash.after-commit-of:}") String afterCommitOf) {
		this.ledger = ledger;
		this.group = group;
		this.beforeCommitOf = beforeCommitOf;
		this.afterCommitOf = afterCommitOf;
	}

	@KafkaListener(id = "group-ledger", topics = "${it.topic}", groupId = "${it.group}")
	@IdempotentListener
	public void credit(ConsumerRecord<String, String> record) {
		this.ledger.credit(this.group, record.key(), record.value());
		if (record.key().equals(this.beforeCommitOf)) {
			stopHere("before-commit " + record.key());
		}
		if (record.key().equals(this.afterCommitOf)) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					stopHere("after-commit " + record.key());
				}
			});
		}
	}

	private static void stopHere(String point) {
		System.out.println("CRASH-POINT " + point);
		System.out.flush();
		while (true) {
			LockSupport.park();
		}
	}

}
