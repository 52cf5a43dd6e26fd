package dev.idempotent.kafka.group;

import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.kafka.listener.DeliveryOutputs;
import dev.idempotent.kafka.support.CurrentRecord;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * One record of a group commit: the record, its claim, and the listener method's invocation with the arguments the
 * listener adapter converted for it, held until the group's claims are known. Each run proceeds a copy of the
 * invocation, so that a run again (the group cut before a failing record, processed record by record, or its
 * transaction retried) goes through the advice inside the idempotent one (a {@code @Transactional}, an application's
 * aspect) as the first did; and a run again has the record converted again ({@link #preparedBy}), so that a method
 * that changes its arguments does not see its own earlier changes. Used by one consumer thread; not thread-safe.
 */
final class GroupMember {

	private final ConsumerRecord<?, ?> record;

	private final ClaimRequest request;

	private final DeliveryOutputs outputs;

	private MethodInvocation invocation;

	private GroupCommitDelivery.@Nullable Preparation preparation;

	private boolean ran;

	/**
	 * @param record the record
	 * @param request its claim
	 * @param invocation the method's invocation for this record, not yet proceeded
	 * @param outputs how what the method sends for this record is captured
	 */
	GroupMember(ConsumerRecord<?, ?> record, ClaimRequest request, MethodInvocation invocation, DeliveryOutputs outputs) {
		this.record = record;
		this.request = request;
		this.invocation = invocation;
		this.outputs = outputs;
	}

	ConsumerRecord<?, ?> record() {
		return this.record;
	}

	ClaimRequest request() {
		return this.request;
	}

	DeliveryOutputs outputs() {
		return this.outputs;
	}

	/** Remember how the record was prepared, to convert it again before a run again. */
	void preparedBy(GroupCommitDelivery.Preparation preparation) {
		this.preparation = preparation;
	}

	/**
	 * Run the listener method for this record, in the group's transaction: the one place where a newly claimed record
	 * of a group is processed, with the record bound as the current one ({@link CurrentRecord}) and its claim as the
	 * current claim ({@link IdempotencyContext}), as a single-record delivery would see them. What it sends is
	 * captured and stored in the transaction ({@link DeliveryOutputs#run}).
	 * @return what the method returned
	 * @throws Throwable whatever the method threw, or the conversion of the record for a run again
	 */
	@Nullable Object run() throws Throwable {
		if (this.ran && this.preparation != null) {
			List<GroupMember> again = this.preparation.prepare(this.record);
			if (!again.isEmpty()) {
				this.invocation = again.get(0).invocation;
			}
		}
		this.ran = true;
		return this.outputs.run(this.request, 1, this::runBound);
	}

	private @Nullable Object runBound() throws Throwable {
		ConsumerRecord<?, ?> previous = CurrentRecord.get();
		CurrentRecord.bind(this.record);
		try {
			// a proceeded invocation keeps its position in the advice chain: proceeding it again would skip the advice
			MethodInvocation run = (this.invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone()
					: this.invocation;
			return IdempotencyContext.runBound(this.request, run::proceed);
		}
		finally {
			if (previous != null) {
				CurrentRecord.bind(previous);
			}
			else {
				CurrentRecord.clear();
			}
		}
	}

}
