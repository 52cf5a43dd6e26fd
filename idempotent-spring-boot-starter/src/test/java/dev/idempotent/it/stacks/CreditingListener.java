package dev.idempotent.it.stacks;

/**
 * The base of the stacks' listeners that write with plain JDBC: counts each call of a key ({@link Attempts})
 * and credits a payment in the listener's consumer group ({@link StackPayments}). Subclasses declare the
 * {@code @KafkaListener} method of their stack. Thread-safe as its collaborators are.
 */
abstract class CreditingListener {

	private final StackPayments payments;

	private final Attempts attempts;

	private final String group;

	CreditingListener(StackPayments payments, Attempts attempts, String group) {
		this.payments = payments;
		this.attempts = attempts;
		this.group = group;
	}

	/** Count a call of {@code key}; returns its number, from 1. */
	int call(String key) {
		return this.attempts.call(key);
	}

	/** Credit a payment of {@code key} in the listener's group. */
	void credit(String key) {
		this.payments.credit(this.group, key);
	}

	/** Throw if {@code mode} asks for a failure on call number {@code call} (see {@link Attempts#failIfAsked}). */
	void failIfAsked(String key, String mode, int call) {
		this.attempts.failIfAsked(key, mode, call);
	}

}
