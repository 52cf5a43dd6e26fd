package dev.idempotent.kafka;

import java.time.Duration;

import org.springframework.kafka.support.Acknowledgment;

/**
 * The {@link Acknowledgment} an idempotent listener method receives: {@code acknowledge()} is held back until
 * the claim's transaction has committed, so that no ack mode can commit the offset before the database. A hit
 * is acknowledged on the method's behalf, since the method does not run. {@code nack} is refused: a listener
 * that wants its record again throws, which rolls the transaction back and lets the error handler retry.
 */
final class DeferredAcknowledgment implements Acknowledgment {

	private final Acknowledgment target;

	private boolean acknowledged;

	DeferredAcknowledgment(Acknowledgment target) {
		this.target = target;
	}

	@Override
	public void acknowledge() {
		this.acknowledged = true;
	}

	@Override
	public void nack(Duration sleep) {
		throw new UnsupportedOperationException("nack() inside an @IdempotentListener method would commit the "
				+ "transaction and redeliver the record as a hit; throw an exception instead to roll back and retry");
	}

	@Override
	public void nack(int index, Duration sleep) {
		nack(sleep);
	}

	@Override
	public boolean isOutOfOrderCommit() {
		return this.target.isOutOfOrderCommit();
	}

	/** Pass the acknowledgment on, now that the transaction committed: if the method acknowledged, or on a hit. */
	void afterCommit(boolean hit) {
		if (this.acknowledged || hit) {
			this.target.acknowledge();
		}
	}

}
