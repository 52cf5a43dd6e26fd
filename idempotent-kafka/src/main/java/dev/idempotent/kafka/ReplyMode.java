package dev.idempotent.kafka;

/**
 * What the startup check does with an {@link IdempotentListener} method that replies ({@code @SendTo}) but whose
 * reply cannot be stored with its claim (see docs/semantics.md, "Replies"): a hit does not call the method, so a
 * redelivered request whose first reply was lost (a crash after the database commit and before the reply was sent)
 * would get no reply. Replies that are stored need neither mode.
 *
 * @since 0.1.0
 */
public enum ReplyMode {

	/** Stop the application, naming the method and how to opt in. */
	REFUSE,

	/** Start, with one WARN per such method saying that a hit sends no reply. */
	WARN

}
