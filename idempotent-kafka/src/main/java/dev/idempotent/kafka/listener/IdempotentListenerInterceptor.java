package dev.idempotent.kafka.listener;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Supplier;

import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimedWork;
import dev.idempotent.claim.LeasedClaimExecutor;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.group.GroupCollector;
import dev.idempotent.kafka.method.BatchParameters;
import dev.idempotent.kafka.method.KafkaEndpoint;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.method.ListenerMethods;
import dev.idempotent.kafka.reply.ListenerReplies;
import dev.idempotent.kafka.reply.StoredReply;
import dev.idempotent.kafka.support.CurrentRecord;
import dev.idempotent.kafka.support.FailedDeliveries;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.metrics.ClaimListener;
import dev.idempotent.output.StoredOutput;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * The advice around an {@link IdempotentListener} method: reads the record bound to the consumer thread,
 * produces and validates its key, and runs the method under a claim with the
 * {@link TransactionalClaimExecutor}. A hit returns {@code null} without calling the method; a bad key is
 * counted as rejected and thrown as {@link InvalidIdempotencyKeyException}, which the error handler sends to
 * the dead-letter topic without retrying. A record older than the retention period goes through the
 * {@link LateRecordCheck} first. An {@code Acknowledgment} argument is replaced by a
 * {@link DeferredAcknowledgment}, whose requests are passed on only after the transaction committed (a hit is
 * acknowledged on the method's behalf); a {@code nack} rolls the transaction back and is then passed on.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class IdempotentListenerInterceptor implements MethodInterceptor {

	/** The position of a single record in its delivery. */
	private static final List<Integer> SINGLE_RECORD = List.of(0);

	private final Supplier<ListenerMethods> methods;

	private final Supplier<TransactionalClaimExecutor> executor;

	private final Supplier<LeasedClaimExecutor> leasedExecutor;

	private final Supplier<ClaimListener> claimListener;

	private final LateRecordCheck lateRecords;

	private final Supplier<@Nullable ClaimOutputs> outputs;

	private final Supplier<@Nullable ListenerReplies> replies;

	IdempotentListenerInterceptor(Supplier<ListenerMethods> methods, Supplier<TransactionalClaimExecutor> executor,
			Supplier<LeasedClaimExecutor> leasedExecutor, Supplier<ClaimListener> claimListener,
			LateRecordCheck lateRecords, Supplier<@Nullable ClaimOutputs> outputs,
			Supplier<@Nullable ListenerReplies> replies) {
		this.methods = methods;
		this.executor = executor;
		this.leasedExecutor = leasedExecutor;
		this.claimListener = claimListener;
		this.lateRecords = lateRecords;
		this.outputs = outputs;
		this.replies = replies;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		ListenerMethod listener = this.methods.get().get(targetMethod(invocation));
		List<ConsumerRecord<?, ?>> batch = batchOf(invocation, listener.endpoint());
		if (batch != null) {
			if (listener.mode() == ClaimMode.LEASED) {
				throw new IllegalStateException("@IdempotentListener method " + listener + " receives batches but is in"
						+ " LEASED mode, whose claims are per record; use a single-record container");
			}
			return new BatchDelivery(listener, invocation, batch, this.executor.get(), this.claimListener.get(),
					this.lateRecords, this.outputs.get())
				.process(DeliveryAcknowledgment.of(invocation.getArguments(), listener.endpoint().acknowledgmentIndex(),
						ContainerBatchPositions.of(batch, CurrentRecord.polledBatch()), true));
		}
		ConsumerRecord<?, ?> record = CurrentRecord.get();
		if (record == null) {
			throw new IllegalStateException("@IdempotentListener method " + listener + " was called without a Kafka "
					+ "record on the consumer thread: it must be a @KafkaListener on a container created by a "
					+ "listener container factory bean");
		}
		String scope = listener.scope();
		ClaimRequest request;
		try {
			request = listener.request(scope, record, invocation.getArguments());
		}
		catch (InvalidIdempotencyKeyException ex) {
			this.claimListener.get().onRejected(scope, ex);
			throw ex;
		}
		this.lateRecords.check(request, record);
		if (GroupCollector.collecting()) {
			// group commit prepares the poll's records first: the group runs the method once its claims are known
			GroupCollector.add(record, request, invocation, DeliveryOutputs.ofRecord(this.outputs.get(), listener));
			return null;
		}
		if (listener.mode() == ClaimMode.TRANSACTIONAL) {
			PollPrefetch.before(this.executor.get(), listener, request, record, invocation.getArguments());
		}
		DeliveryAcknowledgment acknowledgment = DeliveryAcknowledgment.of(invocation.getArguments(),
				listener.endpoint().acknowledgmentIndex(), 1, false);
		ListenerReplies replies = this.replies.get();
		try (DeliveryOutputs outputs = DeliveryOutputs.ofRecord(this.outputs.get(), listener)) {
			StoredReply reply = new StoredReply((replies != null) ? replies.of(listener) : null, outputs, request,
					record);
			ClaimOutcome<Object> outcome = claim(listener, request, record, acknowledgment, invocation, outputs, reply);
			if (outcome == null) {
				return null;
			}
			try {
				// after the claim committed: what the method sent is awaited, a hit's stored outputs are sent again
				StoredOutput stored = outputs.settle(request, outcome, reply.replies());
				if (outcome instanceof ClaimOutcome.Skipped) {
					reply.found(stored);
				}
			}
			catch (Throwable ex) {
				// the claim committed: its key must not become FAILED, the retry is a hit that sends the outputs again
				acknowledgment.failed();
				throw ex;
			}
			FailedDeliveries.succeeded(record);
			acknowledgment.committed((outcome instanceof ClaimOutcome.Skipped) ? SINGLE_RECORD : List.of());
			acknowledgment.complete();
			return reply.returned(outcome.value());
		}
	}

	/**
	 * Run the method under the record's claim; its captured outputs are stored in the claim's transaction (LEASED: in
	 * the completion's).
	 * @return the outcome, or {@code null} when the method nacked the record
	 */
	private @Nullable ClaimOutcome<Object> claim(ListenerMethod listener, ClaimRequest request,
			ConsumerRecord<?, ?> record, DeliveryAcknowledgment acknowledgment, MethodInvocation invocation,
			DeliveryOutputs outputs, StoredReply reply) throws Throwable {
		// each attempt (a retried transaction) proceeds a copy: a proceeded invocation would skip the advice after ours
		ClaimedWork<@Nullable Object> call = () -> reply.record(acknowledgment.call(invocation.getArguments(),
				SINGLE_RECORD, () -> proceedable(invocation).proceed()));
		try {
			if (listener.mode() == ClaimMode.LEASED) {
				return this.leasedExecutor.get().execute(request, listener.lease(),
						() -> outputs.capturing(request, 1, call), outputs::store);
			}
			return this.executor.get().executeInOwnTransaction(request, () -> outputs.run(request, 1, call));
		}
		catch (DeliveryAcknowledgment.Nack nack) {
			// the method asked for the record again: its claim rolled back, the container seeks back to it
			try {
				acknowledgment.nacked(nack);
			}
			catch (RuntimeException refused) {
				// spring-kafka refused the nack (no manual ack mode): a failure of the record, as without the starter
				FailedDeliveries.failed(record, request, (listener.mode() == ClaimMode.LEASED) ? 0 : 1);
				throw refused;
			}
			return null;
		}
		catch (Throwable ex) {
			acknowledgment.failed();
			// a released lease already counted its attempt in the row
			FailedDeliveries.failed(record, request, (listener.mode() == ClaimMode.LEASED) ? 0 : 1);
			throw ex;
		}
	}

	/**
	 * The records of a batch delivery: the method's own batch argument when it holds records (a list of records or
	 * {@code ConsumerRecords}: after any record filter, exactly the records the method receives), else the batch
	 * bound by {@code CurrentRecordInterceptor}; {@code null} for a single-record delivery.
	 */
	private static @Nullable List<ConsumerRecord<?, ?>> batchOf(MethodInvocation invocation, KafkaEndpoint endpoint) {
		BatchParameters parameters = endpoint.batchParameters();
		if (parameters.batchIndex() < 0 || GroupCollector.collecting()) {
			// a record of a group commit is a single-record delivery whatever its payload's type (a List payload of a
			// record method), although its batch container bound the poll
			return null;
		}
		if (endpoint.batch()) {
			List<ConsumerRecord<?, ?>> records = parameters.records(invocation.getArguments());
			if (records != null) {
				return records;
			}
		}
		return CurrentRecord.batch();
	}

	/** A copy of the invocation that proceeds from this advice on, with the arguments as they are now. */
	private static MethodInvocation proceedable(MethodInvocation invocation) {
		return (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : invocation;
	}

	private static Method targetMethod(MethodInvocation invocation) {
		Object target = invocation.getThis();
		Method method = invocation.getMethod();
		return (target != null) ? AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target)) : method;
	}

}
