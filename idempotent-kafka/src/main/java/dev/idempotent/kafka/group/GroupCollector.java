package dev.idempotent.kafka.group;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.listener.DeliveryOutputs;
import dev.idempotent.kafka.support.CurrentRecord;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * The hand-over between the group commit listener and the {@link IdempotentListener} advice, on the consumer
 * thread: while a group is being prepared, the listener adapter converts each record and calls the method as usual;
 * the advice then computes the record's claim, hands it over here with a copy of the invocation, and returns without
 * proceeding. The group commit listener runs the invocations once the group's claims are known.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class GroupCollector {

	private static final ThreadLocal<List<GroupMember>> collecting = new ThreadLocal<>();

	private GroupCollector() {
	}

	/**
	 * Tell whether the current invocation prepares a group member rather than runs the method.
	 * @return whether a group is being prepared on this thread
	 */
	public static boolean collecting() {
		return collecting.get() != null;
	}

	/**
	 * Hand over the member of the record being prepared.
	 * @param record the record
	 * @param request its claim
	 * @param invocation the invocation, which is copied with its arguments
	 * @param outputs how the member's outputs are captured
	 * @throws IllegalStateException if no group is being prepared, or the invocation cannot be copied
	 */
	public static void add(ConsumerRecord<?, ?> record, ClaimRequest request, MethodInvocation invocation,
			DeliveryOutputs outputs) {
		List<GroupMember> members = collecting.get();
		if (members == null) {
			throw new IllegalStateException("No group commit is being prepared on this thread");
		}
		if (!(invocation instanceof ProxyMethodInvocation proxied)) {
			throw new IllegalStateException("Group commit needs a Spring AOP invocation, not " + invocation.getClass());
		}
		members.add(new GroupMember(record, request, proxied.invocableClone(), outputs));
	}

	/**
	 * Prepare the member of one record: run {@code delivery} (the listener adapter's call for the record) with the
	 * record bound as the current one, and return what the advice handed over.
	 * @param record the record
	 * @param delivery calls the listener adapter for the record
	 * @return the record's member, or none if the adapter did not call the method (a record filter dropped it)
	 * @throws Throwable whatever the delivery threw: the record's preparation failed
	 */
	static List<GroupMember> prepare(ConsumerRecord<?, ?> record, Delivery delivery) throws Throwable {
		List<GroupMember> members = new ArrayList<>(1);
		collecting.set(members);
		CurrentRecord.bind(record);
		try {
			delivery.run();
			return members;
		}
		finally {
			CurrentRecord.clear();
			collecting.remove();
		}
	}

	/** The listener adapter's call for one record. */
	@FunctionalInterface
	interface Delivery {

		void run() throws Throwable;

	}

}
