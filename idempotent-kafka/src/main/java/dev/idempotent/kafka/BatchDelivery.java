package dev.idempotent.kafka;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.idempotent.capture.BatchOutputKeys;
import dev.idempotent.capture.Capture;
import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.capture.LoadedOutputs;
import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.TransactionalClaimExecutor;
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

	private final @Nullable ClaimOutputs outputs;

	private final BatchOutputKeys outputKeys;

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
		this.outputs = outputs;
		this.outputKeys = new BatchOutputKeys(listener.scope());
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

	/** Process the first {@code count} records as one transaction, or record by record if it fails. */
	private @Nullable Object processWhole(List<ClaimRequest> requests, int count) throws Throwable {
		List<ClaimRequest> claims = requests.subList(0, count);
		BatchCapture capture = new BatchCapture(claims);
		BatchOutcome<Object> outcome;
		try {
			outcome = this.executor.executeBatchInOwnTransaction(claims, capture::proceedWith);
		}
		catch (DeliveryAcknowledgment.Nack nack) {
			throw nack;
		}
		catch (Throwable batchFailure) {
			capture.close();
			this.acknowledgment.rolledBack();
			logger.info("The batch of {} records of {} failed as one transaction ({}); its records are processed one at"
					+ " a time, each in its own transaction", claims.size(), this.listener, batchFailure.toString());
			return processOneByOne(claims);
		}
		capture.close();
		// committed: the batch's outputs are delivered before any of its offsets is committed; a failure fails the
		// whole delivery (no key becomes FAILED), and its retry, all hits, sends the stored outputs again
		capture.deliver(outcome);
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
		this.outputKeys.restart();
		for (int i = 0; i < claims.size(); i++) {
			List<Integer> position = List.of(i);
			this.outputKeys.mark();
			try (Capture capture = begin(claims.get(i), 1)) {
				ClaimOutcome<Object> outcome;
				try {
					outcome = this.executor.executeInOwnTransaction(claims.get(i), () -> {
						this.outputKeys.rewind();
						if (capture != null) {
							capture.attempt();
						}
						Object value = proceedWith(position);
						if (capture != null) {
							capture.store();
						}
						return value;
					});
				}
				catch (DeliveryAcknowledgment.Nack nack) {
					throw nack;
				}
				catch (Throwable ex) {
					this.acknowledgment.rolledBack();
					FailedDeliveries.failed(this.records.get(i), claims.get(i), 1);
					throw new BatchListenerFailedException("Record " + i + " of the batch failed: " + ex.getMessage(), ex,
							this.records.get(i));
				}
				try {
					deliverOutputs(capture, claims.get(i), outcome);
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
		}
		return last;
	}

	/** Begin capturing the outputs of a call of the method with some records, owned by a claim. */
	private @Nullable Capture begin(ClaimRequest claim, int records) {
		return (this.outputs != null) ? this.outputs.begin(claim, this.listener.capturesOutputs(),
				this.listener.toString(), this.outputKeys, records) : null;
	}

	/** Wait for the outputs a committed claim sent, or send those a hit's first processing stored again. */
	private void deliverOutputs(@Nullable Capture capture, ClaimRequest claim, ClaimOutcome<?> outcome) {
		if (capture == null || this.outputs == null || !capture.recording()) {
			return;
		}
		if (outcome instanceof ClaimOutcome.Skipped<?> skipped) {
			if (!skipped.fromFastPath()) { // the fast path knows only claims that stored no outputs
				this.outputs.replay(claim, skipped.hit(), false);
			}
		}
		else {
			capture.awaitSent();
		}
	}

	/**
	 * The outputs of a batch processed in one transaction: what the method sends is owned by the first claimed record
	 * of the batch (one call of the method cannot tell which record an output belongs to), and keyed by its content
	 * ({@link BatchOutputKeys}), as when its record sends it alone after a fallback; a hit's stored outputs are
	 * sent again, unless its key was claimed in this same batch (a repeat within the batch).
	 */
	private final class BatchCapture {

		private final List<ClaimRequest> claims;

		private @Nullable Capture capture;

		BatchCapture(List<ClaimRequest> claims) {
			this.claims = claims;
		}

		@Nullable Object proceedWith(List<Integer> positions) throws Throwable {
			close();
			BatchDelivery.this.outputKeys.restart();
			this.capture = begin(this.claims.get(positions.get(0)), positions.size());
			Object value = BatchDelivery.this.proceedWith(positions);
			if (this.capture != null) {
				this.capture.store();
			}
			return value;
		}

		void deliver(BatchOutcome<Object> outcome) {
			ClaimOutputs outputs = BatchDelivery.this.outputs;
			if (outputs == null || !outputs.captures(BatchDelivery.this.listener.capturesOutputs())) {
				return;
			}
			if (this.capture != null) {
				this.capture.awaitSent();
			}
			Set<ClaimRequest> claimed = new HashSet<>();
			for (int position : outcome.claimed()) {
				claimed.add(withoutSource(this.claims.get(position)));
			}
			Set<Integer> fastPathHits = Set.copyOf(outcome.fastPathHits());
			List<ClaimRequest> replayed = new ArrayList<>();
			for (int position : outcome.hits()) {
				ClaimRequest hit = this.claims.get(position);
				// the fast path knows only claims that stored no outputs
				if (!fastPathHits.contains(position) && !claimed.contains(withoutSource(hit))) {
					replayed.add(hit);
				}
			}
			LoadedOutputs loaded = outputs.load(replayed); // a statement per window of hits, not per hit
			for (ClaimRequest hit : replayed) {
				outputs.replay(hit, loaded);
			}
		}

		void close() {
			if (this.capture != null) {
				this.capture.close();
			}
		}

		private static ClaimRequest withoutSource(ClaimRequest request) {
			return new ClaimRequest(request.scope(), request.key(), null);
		}

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
