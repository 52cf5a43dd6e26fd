package dev.idempotent.kafka.listener;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.NullPayloadException;
import dev.idempotent.kafka.method.BatchParameters;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.support.FailedDeliveries;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.metrics.ClaimListener;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.kafka.listener.BatchListenerFailedException;

/**
 * One delivery of a batch to an {@link IdempotentListener} batch method:
 * <ol>
 * <li>a key per record (an expression sees the record's element of the list as {@code #payload}, its value for a
 * batch of records, and every per-record list argument as the record's element);</li>
 * <li>every key claimed in one transaction; the method is called once with the list of the newly claimed
 * elements, in their original order; keys processed before and repeats within the batch are hits;</li>
 * <li>if that transaction fails, it is rolled back whole, and the batch is processed again record by record,
 * each in its own transaction: the records before a failing one commit, and the failing one is reported to the
 * error handler as a {@link BatchListenerFailedException} naming that record (not its index: the error handler
 * looks it up in the batch the container polled, which holds the records a record filter dropped too), which
 * commits the offsets before it and retries, then dead-letters, only that record;</li>
 * <li>a record whose preparation fails (a bad key or a failing key expression, a {@code null} payload the method
 * does not accept, a per-record list without its element, a scope that cannot be stored, a record older than the
 * retention period when late records are dead-lettered) is reported the same way, after the records before it
 * were processed; spring-kafka then redelivers the records after it.</li>
 * </ol>
 * Every per-record argument ({@link BatchParameters}) is cut down to the same records as the batch.
 */
final class BatchDelivery {

	private static final Logger logger = LoggerFactory.getLogger(BatchDelivery.class);

	private final ListenerMethod listener;

	private final MethodInvocation invocation;

	private final List<ConsumerRecord<?, ?>> records;

	private final BatchParameters parameters;

	private final List<@Nullable Object> elements;

	private final TransactionalClaimExecutor executor;

	private final ClaimListener claimListener;

	private final LateRecordCheck lateRecords;

	private final DeliveryOutputs outputs;

	private DeliveryAcknowledgment acknowledgment = DeliveryAcknowledgment.NONE;

	/**
	 * Prepare a delivery.
	 * @throws IllegalStateException if the method's list does not have one element per record (the records cannot
	 * be matched to their keys)
	 */
	BatchDelivery(ListenerMethod listener, MethodInvocation invocation, List<ConsumerRecord<?, ?>> records,
			TransactionalClaimExecutor executor, ClaimListener claimListener, LateRecordCheck lateRecords,
			@Nullable ClaimOutputs outputs) {
		this.listener = listener;
		this.invocation = invocation;
		this.records = records;
		this.parameters = listener.endpoint().batchParameters();
		this.elements = this.parameters.elements(invocation.getArguments());
		this.executor = executor;
		this.claimListener = claimListener;
		this.lateRecords = lateRecords;
		this.outputs = DeliveryOutputs.ofBatch(outputs, listener);
		if (this.parameters.problem() != null) {
			throw new IllegalStateException("@IdempotentListener batch method " + listener + " cannot be supported: "
					+ this.parameters.problem());
		}
		if (this.elements.size() != records.size()) {
			throw new IllegalStateException("@IdempotentListener batch method " + listener + " received "
					+ this.elements.size() + " elements for " + records.size() + " records; a record filter or a"
					+ " conversion dropped some, so they cannot be matched to their keys; take"
					+ " List<ConsumerRecord<K, V>> instead");
		}
	}

	/**
	 * Process the batch; its acknowledgment is passed on as {@link DeliveryAcknowledgment} says.
	 * @param acknowledgment the delivery's acknowledgment, {@link DeliveryAcknowledgment#NONE} if the method takes none
	 * @return what the method returned, or {@code null}
	 * @throws Throwable a {@link BatchListenerFailedException} for a failing record, or what the batch threw
	 */
	@Nullable Object process(DeliveryAcknowledgment acknowledgment) throws Throwable {
		this.acknowledgment = acknowledgment;
		try {
			Object value = processRecords();
			acknowledgment.complete();
			return value;
		}
		catch (DeliveryAcknowledgment.Nack nack) {
			acknowledgment.nacked(nack);
			return null;
		}
		catch (Throwable ex) {
			acknowledgment.failed();
			throw ex;
		}
	}

	private @Nullable Object processRecords() throws Throwable {
		List<ClaimRequest> requests = new ArrayList<>(this.records.size());
		for (int i = 0; i < this.records.size(); i++) {
			try {
				requests.add(prepare(i));
			}
			catch (RuntimeException ex) {
				if (i > 0) {
					processWhole(requests, i);
				}
				throw new BatchListenerFailedException("Record " + i + " of the batch could not be prepared: "
						+ ex.getMessage(), ex, this.records.get(i));
			}
		}
		return processWhole(requests, requests.size());
	}

	/**
	 * The claim request of the record at a position.
	 * @throws RuntimeException that record's own failure: rejected keys are counted here
	 */
	private ClaimRequest prepare(int position) {
		ConsumerRecord<?, ?> record = this.records.get(position);
		String scope = this.listener.scope();
		Object element = this.elements.get(position);
		if (element == null && !this.parameters.nullableElements()) {
			throw new NullPayloadException(record, this.listener.toString());
		}
		String missing = this.parameters.missingElement(this.invocation.getArguments(), position);
		if (missing != null) {
			throw new IllegalStateException("@IdempotentListener batch method " + this.listener + ": " + missing);
		}
		ClaimRequest request;
		try {
			request = this.listener.request(scope, record,
					this.parameters.elementArguments(this.invocation.getArguments(), position, element));
		}
		catch (InvalidIdempotencyKeyException ex) {
			this.claimListener.onRejected(scope, ex);
			throw ex;
		}
		this.lateRecords.check(request, record);
		return request;
	}

	/**
	 * Process the first {@code count} records as one transaction, or record by record if it fails. What the call sends
	 * is owned by the first claimed record of the batch (one call of the method cannot tell which record an output
	 * belongs to), and keyed by its content, as when its record sends it alone after a fallback.
	 */
	private @Nullable Object processWhole(List<ClaimRequest> requests, int count) throws Throwable {
		List<ClaimRequest> claims = requests.subList(0, count);
		BatchOutcome<Object> outcome;
		this.outputs.restart();
		try {
			outcome = this.executor.executeBatchInOwnTransaction(claims,
					(positions) -> this.outputs.run(claims.get(positions.get(0)), positions.size(),
							() -> proceedWith(positions)));
		}
		catch (DeliveryAcknowledgment.Nack nack) {
			throw nack;
		}
		catch (Throwable batchFailure) {
			this.acknowledgment.rolledBack();
			logger.info("The batch of {} records of {} failed as one transaction ({}); its records are processed one at"
					+ " a time, each in its own transaction", claims.size(), this.listener, batchFailure.toString());
			return processOneByOne(claims);
		}
		// committed: the batch's outputs are delivered before any of its offsets is committed; a failure fails the
		// whole delivery (no key becomes FAILED), and its retry, all hits, sends the stored outputs again; a repeat of a
		// key within the batch sends nothing again: the call sent the outputs of all its records
		DeliveryOutputs.settle(claims, outcome, (position) -> this.outputs, false, (position, ex) -> ex);
		try {
			this.acknowledgment.committed(outcome.hits());
			this.records.subList(0, count).forEach(FailedDeliveries::succeeded);
			return outcome.value();
		}
		catch (DeliveryAcknowledgment.Nack nack) {
			throw nack;
		}
		catch (Throwable batchFailure) {
			this.acknowledgment.rolledBack();
			return processOneByOne(claims);
		}
	}

	private @Nullable Object processOneByOne(List<ClaimRequest> claims) throws Throwable {
		Object last = null;
		this.outputs.restart();
		for (int i = 0; i < claims.size(); i++) {
			List<Integer> position = List.of(i);
			ClaimRequest claim = claims.get(i);
			this.outputs.mark();
			ClaimOutcome<Object> outcome;
			try {
				outcome = this.executor.executeInOwnTransaction(claim,
						() -> this.outputs.run(claim, 1, () -> proceedWith(position)));
			}
			catch (DeliveryAcknowledgment.Nack nack) {
				throw nack;
			}
			catch (Throwable ex) {
				this.acknowledgment.rolledBack();
				FailedDeliveries.failed(this.records.get(i), claim, 1);
				throw new BatchListenerFailedException("Record " + i + " of the batch failed: " + ex.getMessage(), ex,
						this.records.get(i));
			}
			try {
				this.outputs.settle(claim, outcome, false);
			}
			catch (RuntimeException ex) {
				// the claim committed: its key must not become FAILED; the retry is a hit that sends them again
				this.acknowledgment.rolledBack();
				throw new BatchListenerFailedException("The outputs of record " + i + " of the batch were not"
						+ " delivered: " + ex.getMessage(), ex, this.records.get(i));
			}
			this.acknowledgment.committed((outcome instanceof ClaimOutcome.Skipped) ? position : List.of());
			last = outcome.value();
			FailedDeliveries.succeeded(this.records.get(i));
		}
		return last;
	}

	/**
	 * Call the method with the records at some positions of the batch, every per-record argument cut down alike, and
	 * an acknowledgment that maps its indexes back to those positions.
	 */
	private @Nullable Object proceedWith(List<Integer> positions) throws Throwable {
		Object[] arguments = this.parameters.select(this.invocation.getArguments(), this.elements, positions);
		return this.acknowledgment.call(arguments, positions,
				() -> ((ProxyMethodInvocation) this.invocation).invocableClone(arguments).proceed());
	}

}
