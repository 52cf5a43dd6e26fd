package dev.idempotent.kafka;

/**
 * Whether an {@link IdempotentListener} single-record listener commits the records of a poll in one transaction
 * ({@link IdempotentListener#groupCommit()}).
 *
 * @since 0.1.0
 */
public enum GroupCommit {

	/** As {@code idempotent.group-commit.enabled} says; a listener group commit cannot serve runs record by record. */
	DEFAULT,

	/** Group commit; a listener it cannot serve stops the application at startup. */
	ENABLED,

	/** One transaction per record, whatever {@code idempotent.group-commit.enabled} says. */
	DISABLED

}
