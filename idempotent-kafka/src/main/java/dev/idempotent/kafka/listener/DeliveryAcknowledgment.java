package dev.idempotent.kafka.listener;

import java.time.Duration;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;

import dev.idempotent.claim.ClaimedWork;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.Acknowledgment;

/**
 * The container's {@link Acknowledgment} for one delivery (a record, or a batch of {@code records} records), and
 * what the idempotent listener method asked of it (docs/semantics.md, "Acknowledgments and guards").
 * <p>Each call of the method in the delivery (the batch's one transaction, or each record of the record-by-record
 * pass) gets its own {@link DeferredAcknowledgment}, which holds its requests until its transaction committed. This
 * object gathers the committed requests and passes them to the container's acknowledgment when the delivery ended
 * normally ({@link #complete()}), and straight through afterwards (the async-acks pattern: the method acknowledges
 * on another thread after it returned). A delivery that failed ({@link #failed()}) or was nacked passes nothing
 * more: the error handler, or the nack, decides about its offsets.
 * <p>What is passed is "every record up to position {@code p} is done", positions in the container's batch (which
 * holds the records a record filter dropped too; they are done, as hits are):
 * <ul>
 * <li>a record that was a hit is done, so an acknowledgment reaches over the hits right after it, and a delivery of
 * hits only is acknowledged on the method's behalf;</li>
 * <li>up to the last record: the container's {@code acknowledge()} (or {@code acknowledge(last)} after a partial
 * acknowledgment: spring-kafka 4.0's {@code acknowledge()} after a partial one commits one more record, not the
 * rest);</li>
 * <li>up to an earlier record: {@code acknowledge(p)} (a partial batch acknowledgment), only when the method itself
 * asked for one with {@code acknowledge(int)}.</li>
 * </ul>
 * <p>Thread-safe: every request, and every call of the container's acknowledgment, is made under this object's
 * lock, in order.
 */
final class DeliveryAcknowledgment {

	/** For a method that takes no {@code Acknowledgment}: runs the method, keeps and passes nothing. */
	static final DeliveryAcknowledgment NONE = new DeliveryAcknowledgment(null, -1, ContainerBatchPositions.identity(0),
			false);

	private final @Nullable Acknowledgment target;

	private final int argumentIndex;

	/** Where each record of the delivery sits in the container's batch, which its acknowledgment indexes. */
	private final ContainerBatchPositions container;

	/** The last position in the container's batch. */
	private final int last;

	private final boolean batch;

	private final Thread consumerThread;

	private final BitSet hits = new BitSet();

	private State state = State.IN_PROGRESS;

	private @Nullable DeferredAcknowledgment attempt;

	private int requested = -1;

	private boolean partialRequested;

	private int passed = -1;

	private DeliveryAcknowledgment(@Nullable Acknowledgment target, int argumentIndex,
			ContainerBatchPositions container, boolean batch) {
		this.target = target;
		this.argumentIndex = argumentIndex;
		this.container = container;
		this.last = container.size() - 1;
		this.batch = batch;
		this.consumerThread = Thread.currentThread();
		// records a record filter dropped are done, as hits are
		this.hits.or(container.notDelivered());
	}

	/**
	 * The delivery's acknowledgment, if the method takes one; call on the consumer thread, before the method runs.
	 * @param arguments the method's arguments
	 * @param index the index of its {@code Acknowledgment} parameter, or -1
	 * @param records how many records the delivery holds (1 for a single-record listener)
	 * @param batch whether the method is a batch listener
	 * @return the delivery's acknowledgment, or {@link #NONE} if the method takes none or receives {@code null}
	 */
	static DeliveryAcknowledgment of(@Nullable Object[] arguments, int index, int records, boolean batch) {
		return of(arguments, index, ContainerBatchPositions.identity(records), batch);
	}

	/**
	 * The acknowledgment of a batch delivery whose records are some of the container's batch (a record filter
	 * dropped the others); call on the consumer thread, before the method runs. Positions given to this object are
	 * positions in the delivery; what reaches the container's acknowledgment indexes its own batch, and the dropped
	 * records count as done.
	 * @param arguments the method's arguments
	 * @param index the index of its {@code Acknowledgment} parameter, or -1
	 * @param container where each record of the delivery sits in the container's batch
	 * @param batch whether the method is a batch listener
	 * @return the delivery's acknowledgment, or {@link #NONE} if the method takes none or receives {@code null}
	 */
	static DeliveryAcknowledgment of(@Nullable Object[] arguments, int index, ContainerBatchPositions container,
			boolean batch) {
		if (index < 0 || index >= arguments.length || !(arguments[index] instanceof Acknowledgment target)) {
			return NONE;
		}
		return new DeliveryAcknowledgment(target, index, container, batch);
	}

	/**
	 * Call the method in a transaction: put a fresh {@link DeferredAcknowledgment} for its list into its arguments,
	 * run it, and roll the transaction back if it nacked.
	 * @param arguments the arguments the method is called with; the acknowledgment is replaced in place
	 * @param positions the position in the delivery of each element of the list the method receives, ascending
	 * ({@code [0]} for a single record)
	 * @param method calls the method with {@code arguments}
	 * @return what the method returned
	 * @throws Nack if the method nacked (so that the transaction rolls back)
	 * @throws Throwable what the method threw
	 */
	@Nullable Object call(@Nullable Object[] arguments, List<Integer> positions, ClaimedWork<@Nullable Object> method)
			throws Throwable {
		if (this.target == null) {
			return method.run();
		}
		DeferredAcknowledgment current;
		synchronized (this) {
			if (this.attempt != null) {
				this.attempt.rolledBack();
			}
			current = new DeferredAcknowledgment(this, positions.stream().map(this.container::of).toList());
			this.attempt = current;
		}
		arguments[this.argumentIndex] = current;
		Object value = method.run();
		current.rollBackIfNacked();
		return value;
	}

	/**
	 * The transaction of the last {@link #call} (if any) committed; {@code hits} are the positions the claim found
	 * done.
	 * @param hits positions in the delivery that were idempotent hits
	 */
	synchronized void committed(Collection<Integer> hits) {
		if (this.target == null) {
			return;
		}
		hits.forEach((hit) -> this.hits.set(this.container.of(hit)));
		DeferredAcknowledgment current = this.attempt;
		this.attempt = null;
		if (current != null) {
			current.committed();
		}
	}

	/** The transaction of the last {@link #call} (if any) rolled back: what its method asked is dropped. */
	synchronized void rolledBack() {
		DeferredAcknowledgment current = this.attempt;
		this.attempt = null;
		if (current != null) {
			current.rolledBack();
		}
	}

	/** The delivery ended normally: pass what is done on to the container, and later requests straight through. */
	synchronized void complete() {
		if (this.target != null && this.state == State.IN_PROGRESS) {
			this.state = State.COMPLETE;
			pass();
		}
	}

	/** The delivery failed: the error handler commits what it decides; later requests are dropped. */
	synchronized void failed() {
		rolledBack();
		if (this.target != null && this.state == State.IN_PROGRESS) {
			this.state = State.ENDED;
		}
	}

	/**
	 * The method nacked and its transaction rolled back: pass the nack on, from the first record of its list, and
	 * end the delivery.
	 * @param nack what the method asked
	 */
	synchronized void nacked(Nack nack) {
		rolledBack();
		this.state = State.ENDED;
		passNack(nack.position(), nack.sleep());
	}

	/** A committed call of the method acknowledged every record up to {@code position} of the container's batch. */
	synchronized void request(int position, boolean partial) {
		this.requested = Math.max(this.requested, position);
		this.partialRequested |= partial;
		if (this.state == State.COMPLETE) {
			pass();
		}
	}

	/**
	 * A committed call of the method nacked from {@code position} of the container's batch after its commit:
	 * passed straight on (the
	 * redelivery is a hit), unless the delivery failed or was nacked already.
	 */
	synchronized void nack(int position, Duration sleep) {
		if (this.state != State.ENDED) {
			passNack(position, sleep);
		}
	}

	private void passNack(int position, Duration sleep) {
		Acknowledgment container = target();
		if (this.batch) {
			container.nack(position, sleep);
		}
		else {
			container.nack(sleep);
		}
	}

	boolean isBatch() {
		return this.batch;
	}

	boolean isConsumerThread() {
		return Thread.currentThread() == this.consumerThread;
	}

	boolean isOutOfOrderCommit() {
		return target().isOutOfOrderCommit();
	}

	private void pass() {
		int upTo = this.requested;
		while (upTo < this.last && this.hits.get(upTo + 1)) {
			upTo++;
		}
		if (upTo <= this.passed) {
			return;
		}
		Acknowledgment container = target();
		if (upTo == this.last) {
			if (this.passed < 0) {
				container.acknowledge();
			}
			else {
				container.acknowledge(this.last);
			}
		}
		else if (this.partialRequested) {
			container.acknowledge(upTo);
		}
		else {
			return;
		}
		this.passed = upTo;
	}

	private Acknowledgment target() {
		if (this.target == null) {
			throw new IllegalStateException("No acknowledgment in this delivery");
		}
		return this.target;
	}

	@Override
	public String toString() {
		return "Deferred " + this.target;
	}

	private enum State {

		/** Requests of committed calls are gathered. */
		IN_PROGRESS,

		/** Ended normally: requests pass straight through. */
		COMPLETE,

		/** Failed or nacked: requests are dropped. */
		ENDED

	}

	/**
	 * Thrown out of the method's transaction when the method nacked, so that the transaction rolls back; the caller
	 * then passes the nack on with {@link #nacked}. Never reaches the container.
	 */
	static final class Nack extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final int position;

		private final Duration sleep;

		Nack(int position, Duration sleep) {
			super("The listener nacked the delivery (redelivery in " + sleep + "); its transaction is rolled back",
					null, false, false);
			this.position = position;
			this.sleep = sleep;
		}

		/** The position in the delivery from which the records are delivered again. */
		int position() {
			return this.position;
		}

		Duration sleep() {
			return this.sleep;
		}

	}

}
