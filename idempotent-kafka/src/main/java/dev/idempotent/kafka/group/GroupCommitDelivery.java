package dev.idempotent.kafka.group;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.listener.DeliveryOutputs;
import dev.idempotent.kafka.support.DeserializationFailures;
import dev.idempotent.kafka.support.FailedDeliveries;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.support.serializer.DeserializationException;

/**
 * The records of one poll delivered to a single-record {@link IdempotentListener} method with group commit
 * (docs/semantics.md, "Group commit"):
 * <ol>
 * <li>each record is prepared through the listener adapter as a single-record delivery would be (conversion, record
 * filter, key), without running the method ({@link GroupCollector});</li>
 * <li>the prepared records are cut into groups ({@link GroupSize}); the claims of a group are made in one round
 * trip ({@link TransactionalClaimExecutor#executeBatchInOwnTransaction}), the method runs once per newly claimed
 * record ({@link GroupMember#run()}), and one commit covers the group; keys processed before and repeats of a key
 * within the group are hits, skipped; the container commits the offsets after the listener returns;</li>
 * <li>when the method fails for a record, the group rolls back; the records before it are committed as a smaller
 * group, and the failing record is reported alone to the container's error handler as a
 * {@link BatchListenerFailedException} naming it, which commits the offsets before it, retries it and dead-letters
 * it alone; a failure that is no record's (the claims, the commit) is resolved by processing the group record by
 * record, each in its own transaction;</li>
 * <li>a record whose preparation fails (a bad key, a payload that cannot be converted, a record older than the
 * retention period when late records are dead-lettered, a key or value the {@code ErrorHandlingDeserializer} could
 * not read) is reported the same way, after the records before it were committed;</li>
 * <li>after a group committed, what its claimed members sent is awaited and what its hits' first processing stored is
 * sent again ({@link DeliveryOutputs}), before the offsets are committed; a record whose outputs were not delivered is
 * reported alone, like a failing one, but its claim stays committed and is not marked FAILED: its retry is a hit that
 * sends them again.</li>
 * </ol>
 * One instance per poll; not thread-safe.
 */
final class GroupCommitDelivery {

	private final TransactionalClaimExecutor executor;

	private final GroupSize sizes;

	GroupCommitDelivery(TransactionalClaimExecutor executor, GroupSize sizes) {
		this.executor = executor;
		this.sizes = sizes;
	}

	/**
	 * Deliver the records of a poll.
	 * @param records the records, in the order polled
	 * @param prepare prepares the member of a record (see {@link GroupCollector#prepare})
	 * @throws BatchListenerFailedException naming the first record that failed, after the records before it committed
	 */
	void deliver(List<? extends ConsumerRecord<?, ?>> records, Preparation prepare) {
		List<GroupMember> members = new ArrayList<>(records.size());
		for (ConsumerRecord<?, ?> record : records) {
			try {
				DeserializationException unreadable = DeserializationFailures.of(record);
				if (unreadable != null) {
					throw unreadable; // as spring-kafka's record path does, before the listener
				}
				for (GroupMember member : prepare.prepare(record)) {
					member.preparedBy(prepare);
					members.add(member);
				}
			}
			catch (Throwable ex) {
				commitInGroups(members);
				Throwable cause = unwrap(ex);
				throw new BatchListenerFailedException("Record " + record.topic() + "-" + record.partition() + "@"
						+ record.offset() + " could not be prepared for group commit: " + cause.getMessage(), cause,
						record);
			}
		}
		commitInGroups(members);
	}

	private void commitInGroups(List<GroupMember> members) {
		int from = 0;
		while (from < members.size()) {
			List<GroupMember> group = members.subList(from, Math.min(members.size(), from + this.sizes.next()));
			long start = System.nanoTime();
			commit(group);
			this.sizes.took(group.size(), System.nanoTime() - start);
			from += group.size();
		}
	}

	/**
	 * Commit a group in one transaction, or isolate its failing record.
	 * @throws BatchListenerFailedException naming the failing record, after the records before it committed
	 */
	private void commit(List<GroupMember> group) {
		if (group.isEmpty()) {
			return;
		}
		List<ClaimRequest> claims = group.stream().map(GroupMember::request).toList();
		MemberFailure memberFailure = new MemberFailure();
		BatchOutcome<@Nullable Object> outcome;
		try {
			outcome = this.executor.executeBatchInOwnTransaction(claims,
					(claimed) -> {
						memberFailure.clear(); // the executor may run the work again after a transient failure
						for (int position : claimed) {
							try {
								group.get(position).run();
							}
							catch (Throwable ex) {
								throw memberFailure.of(position, ex);
							}
						}
						return null;
					});
		}
		catch (Throwable ex) {
			int failing = memberFailure.positionOf(ex);
			if (failing < 0) {
				// the claims or the commit failed, for no record in particular
				commitOneByOne(group);
				return;
			}
			commit(group.subList(0, failing));
			throw failed(group.get(failing), ex);
		}
		// after the commit, in the order of the records: a repeat of a key within the group is a delivery of its own,
		// which sends the stored outputs again
		DeliveryOutputs.settle(claims, outcome,
				(position) -> group.get(position).outputs(), true, (position, ex) -> {
					group.subList(0, position).forEach((done) -> FailedDeliveries.succeeded(done.record()));
					return undelivered(group.get(position), ex);
				});
		group.forEach((member) -> FailedDeliveries.succeeded(member.record()));
	}

	private void commitOneByOne(List<GroupMember> group) {
		for (GroupMember member : group) {
			ClaimOutcome<@Nullable Object> outcome;
			try {
				outcome = this.executor.executeInOwnTransaction(member.request(), member::run);
			}
			catch (Throwable ex) {
				throw failed(member, ex);
			}
			try {
				member.outputs().settle(member.request(), outcome, false);
			}
			catch (RuntimeException ex) {
				throw undelivered(member, ex);
			}
			FailedDeliveries.succeeded(member.record());
		}
	}

	/** A member whose claim committed but whose outputs were not delivered: retried, never marked FAILED. */
	private static BatchListenerFailedException undelivered(GroupMember member, RuntimeException ex) {
		ConsumerRecord<?, ?> record = member.record();
		return new BatchListenerFailedException("The outputs of record " + record.topic() + "-" + record.partition()
				+ "@" + record.offset() + " of the group were not delivered after its claim committed: "
				+ ex.getMessage(), ex, record);
	}

	private static BatchListenerFailedException failed(GroupMember member, Throwable ex) {
		ClaimRequest request = member.request();
		FailedDeliveries.failed(member.record(), request, 1);
		ConsumerRecord<?, ?> record = member.record();
		return new BatchListenerFailedException("Record " + record.topic() + "-" + record.partition() + "@"
				+ record.offset() + " of the group failed: " + ex.getMessage(), ex, record);
	}

	/** The failure of a record's preparation, without the listener adapter's wrapper. */
	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof ListenerExecutionFailedException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * The member whose run failed the group's last run of its work. The executor may run the work again after a
	 * transient failure, and that run may fail before the work (its claims): the failure is a member's only if it is,
	 * or was caused by, what that member threw.
	 */
	private static final class MemberFailure {

		private int position = -1;

		private @Nullable Throwable failure;

		void clear() {
			this.position = -1;
			this.failure = null;
		}

		<T extends Throwable> T of(int position, T failure) {
			this.position = position;
			this.failure = failure;
			return failure;
		}

		/** The position of the member whose run failed the group with {@code failure}, or -1 if none did. */
		int positionOf(Throwable failure) {
			for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
				if (t == this.failure) {
					return this.position;
				}
			}
			return -1;
		}

	}

	/** Prepares the member of one record. */
	@FunctionalInterface
	interface Preparation {

		/**
		 * Prepare a record.
		 * @param record the record
		 * @return its member, or none if the record is not delivered (a record filter dropped it)
		 * @throws Throwable the record's failure
		 */
		List<GroupMember> prepare(ConsumerRecord<?, ?> record) throws Throwable;

	}

}
