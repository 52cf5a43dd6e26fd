package dev.idempotent.kafka.listener;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.Acknowledgment;

/**
 * The {@link Acknowledgment} one call of an idempotent listener method receives, so that no ack mode commits an
 * offset before the claim's transaction committed (docs/semantics.md, "Acknowledgments and guards"):
 * <ul>
 * <li>{@code acknowledge()} and {@code acknowledge(int)} made while the transaction is open are held, and passed on
 * (through the {@link DeliveryAcknowledgment}) when it commits; made after the commit, on any thread, they pass
 * straight through; made after a rollback, they are dropped (the record is retried or dead-lettered);</li>
 * <li>{@code acknowledge(int index)} indexes the list the method received (hits filtered out): it acknowledges every
 * record of the delivery up to that element's position, and the hits right after it;</li>
 * <li>{@code nack} while the transaction is open rolls the transaction back when the method returns, and is then
 * passed on: the records come again after the sleep, and are claimed again. A batch is redelivered from the first
 * element of the method's list, since the transaction rolled back the elements before the index too;</li>
 * <li>what spring-kafka's own acknowledgment refuses whatever the ack mode is refused here at once, with the same
 * exception: {@code acknowledge(int)} and {@code nack(int, Duration)} of a single record, {@code nack(Duration)} of
 * a batch, a partial acknowledgment or a nack off the consumer thread, a nack with out-of-order commits
 * ({@code asyncAcks}), an index out of the list or not above the previous one. What depends on the ack mode
 * (partial acknowledgments need {@code MANUAL_IMMEDIATE}; outside the manual modes spring-kafka's acknowledgment is a
 * no-op that cannot nack) is spring-kafka's to refuse when the request is passed on.</li>
 * </ul>
 * <p>Thread-safe: it shares its delivery's lock.
 */
final class DeferredAcknowledgment implements Acknowledgment {

	private final DeliveryAcknowledgment delivery;

	/** The position in the container's batch of each element of the method's list, ascending. */
	private final List<Integer> positions;

	private State state = State.OPEN;

	/** The highest position acknowledged while the transaction was open, or -1. */
	private int held = -1;

	private boolean heldPartial;

	private int lastIndex = -1;

	private @Nullable Duration nackSleep;

	DeferredAcknowledgment(DeliveryAcknowledgment delivery, List<Integer> positions) {
		if (positions.isEmpty()) {
			throw new IllegalArgumentException("A call of the method receives at least one record");
		}
		this.delivery = delivery;
		this.positions = List.copyOf(positions);
	}

	@Override
	public void acknowledge() {
		synchronized (this.delivery) {
			request(this.positions.get(this.positions.size() - 1), false);
		}
	}

	@Override
	public void acknowledge(int index) {
		if (!this.delivery.isBatch()) {
			throw new UnsupportedOperationException("ack(index) is not supported by this Acknowledgment");
		}
		if (!this.delivery.isConsumerThread()) {
			throw new IllegalStateException("Partial batch acknowledgment is only supported on the consumer thread");
		}
		checkIndex(index);
		synchronized (this.delivery) {
			if (index <= this.lastIndex) {
				throw new IllegalArgumentException(String.format(
						"index (%d) must be greater than the previous partial commit (%d)", index, this.lastIndex));
			}
			this.lastIndex = index;
			request(this.positions.get(index), true);
		}
	}

	@Override
	public void nack(Duration sleep) {
		if (this.delivery.isBatch()) {
			throw new UnsupportedOperationException("nack(sleep) is not supported by a batch Acknowledgment; use "
					+ "nack(index, sleep)");
		}
		nackAt(0, sleep);
	}

	@Override
	public void nack(int index, Duration sleep) {
		if (!this.delivery.isBatch()) {
			throw new UnsupportedOperationException("nack(index, sleep) is not supported by this Acknowledgment");
		}
		checkIndex(index);
		nackAt(index, sleep);
	}

	@Override
	public boolean isOutOfOrderCommit() {
		return this.delivery.isOutOfOrderCommit();
	}

	/** The transaction committed: pass on what was held; later requests pass straight through. */
	void committed() {
		synchronized (this.delivery) {
			if (this.state != State.OPEN) {
				return;
			}
			this.state = State.COMMITTED;
			if (this.held >= 0) {
				this.delivery.request(this.held, this.heldPartial);
			}
		}
	}

	/** The transaction rolled back: drop what was held, and every later request. */
	void rolledBack() {
		synchronized (this.delivery) {
			if (this.state == State.OPEN) {
				this.state = State.ROLLED_BACK;
				this.held = -1;
				this.nackSleep = null;
			}
		}
	}

	/**
	 * The method returned: if it nacked, throw so that its transaction rolls back.
	 * @throws DeliveryAcknowledgment.Nack if the method nacked while its transaction was open
	 */
	void rollBackIfNacked() {
		synchronized (this.delivery) {
			if (this.state == State.OPEN && this.nackSleep != null) {
				throw new DeliveryAcknowledgment.Nack(this.positions.get(0), this.nackSleep);
			}
		}
	}

	private void request(int position, boolean partial) {
		switch (this.state) {
			case OPEN -> {
				this.held = Math.max(this.held, position);
				this.heldPartial |= partial;
			}
			case COMMITTED -> this.delivery.request(position, partial);
			case ROLLED_BACK -> {
				// the record is retried or dead-lettered: its offset must not be committed
			}
		}
	}

	private void nackAt(int index, Duration sleep) {
		if (!this.delivery.isConsumerThread()) {
			throw new IllegalStateException("nack() can only be called on the consumer thread");
		}
		if (this.delivery.isOutOfOrderCommit()) {
			throw new IllegalStateException("nack() is not supported with out-of-order commits");
		}
		if (sleep.isNegative()) {
			throw new IllegalArgumentException("sleep cannot be negative");
		}
		synchronized (this.delivery) {
			switch (this.state) {
				case OPEN -> this.nackSleep = sleep;
				case COMMITTED -> this.delivery.nack(this.positions.get(index), sleep);
				case ROLLED_BACK -> {
					// already coming again
				}
			}
		}
	}

	private void checkIndex(int index) {
		if (index < 0 || index >= this.positions.size()) {
			throw new IllegalArgumentException(String.format("index (%d) is out of range (%d-%d)", index, 0,
					this.positions.size() - 1));
		}
	}

	@Override
	public String toString() {
		return this.delivery + " for positions " + this.positions;
	}

	private enum State {

		/** The transaction is open: requests are held. */
		OPEN,

		/** The transaction committed: requests pass through. */
		COMMITTED,

		/** The transaction rolled back: requests are dropped. */
		ROLLED_BACK

	}

}
