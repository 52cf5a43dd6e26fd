package dev.idempotent.it;

import java.util.concurrent.locks.LockSupport;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Credits each record of {@code it.topic} and sends {@code out:<key>} to {@code it.out-topic} through the
 * application's {@code KafkaTemplate}, for the crash tests of outputs. {@code crash.after-commit-of} stops the
 * consumer thread right after the database commit of that key, before its output was awaited (and, under a Kafka
 * transaction, before the Kafka commit), prints a {@code CRASH-POINT} line and parks until the test kills the process.
 */
public class OutputsCrashListener {

	private final ItLedger ledger;

	private final KafkaTemplate<String, String> template;

	private final String group;

	private final String outTopic;

	private final String afterCommitOf;

	public OutputsCrashListener(ItLedger ledger, KafkaTemplate<String, String> template, String group, String outTopic,
			String afterCommitOf) {
		this.ledger = ledger;
		this.template = template;
		this.group = group;
		this.outTopic = outTopic;
		this.afterCommitOf = afterCommitOf;
	}

	@KafkaListener(id = "outputs-crash", topics = "${it.topic}", groupId = "${it.group}")
	@IdempotentListener
	public void credit(ConsumerRecord<String, String> record) {
		this.ledger.credit(this.group, record.key(), record.value());
		this.template.send(this.outTopic, record.key(), "out:" + record.key());
		if (record.key().equals(this.afterCommitOf)) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					System.out.println("CRASH-POINT after-commit " + record.key());
					System.out.flush();
					while (true) {
						LockSupport.park();
					}
				}
			});
		}
	}

}
