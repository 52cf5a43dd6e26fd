package dev.idempotent.kafka;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.idempotent.claim.ClaimMode;

/**
 * Makes a {@code @KafkaListener} method idempotent: each delivery claims its idempotency key in the business
 * database, in one transaction with whatever the method writes there, and a key that was processed before is
 * an idempotent hit: the method is not called, one INFO line is logged on {@code dev.idempotent.hits}, and the
 * record's offset is committed as usual.
 * <pre class="code">
 * &#64;KafkaListener(topics = "payments.order-paid", groupId = "ledger")
 * &#64;IdempotentListener(key = "'pay:' + #payload.orderId")
 * public void onPaid(OrderPaid event) { ledger.credit(event); }
 * </pre>
 * <p>The method runs inside the claim's JDBC transaction; it returns, the transaction commits, and only then
 * does the listener container commit the offset. A key that is null, blank, too long, or whose expression
 * fails is bad input: the record is not retried and goes to the dead-letter topic with the reason in headers.
 * <p>Supported: single-record and batch listeners (a {@code List} of records or payloads; only newly claimed
 * elements are passed, LEASED mode is single-record only) on containers created by a container factory bean. The
 * bean is proxied; the method must be public and not final.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentListener {

	/**
	 * A SpEL expression for the idempotency key. Variables: {@code #record} (the {@code ConsumerRecord}),
	 * {@code #key} (the record key), {@code #payload} (the converted payload argument, or the record value),
	 * {@code #headers} (record headers by name, values as {@code byte[]}), {@code #topic}, and every method
	 * argument by its parameter name (compile with {@code -parameters}). The result must be a String, number,
	 * UUID or UTF-8 {@code byte[]}. Keys come from the business (order id, payment serial) or a producer-set
	 * header: never the offset, never a hash of the payload.
	 * <p>Empty (the default): the value of the header named by {@code idempotent.key-header}
	 * ({@code idempotency-key} unless configured).
	 * @return the key expression, or empty for the key header
	 */
	String key() default "";

	/**
	 * A prefix put before every key of this listener, e.g. {@code "pay:"}; counted in the key's length.
	 * @return the prefix, empty by default
	 */
	String prefix() default "";

	/**
	 * The scope keys are unique in. Empty (the default): the consumer group id, so two groups reading one topic
	 * each process every record once. Placeholders ({@code ${...}}) are resolved.
	 * <p>A scope taken from the group id belongs to this one method: when another {@code @IdempotentListener}
	 * method resolves to the same scope (one {@code spring.kafka.consumer.group-id} for every listener, a listener on
	 * the dead-letter topic in the same group, another {@code @KafkaHandler} of the same class), the application
	 * refuses to start, because a record of one could be skipped as the other's hit. Then give each method its own
	 * scope; to keep the keys already stored, give the method that wrote them {@code scope = "<group id>"}. Methods
	 * that all declare the same scope share its keys on purpose.
	 * @return the scope, or empty for the consumer group id
	 */
	String scope() default "";

	/**
	 * How the claim relates to the method. {@link ClaimMode#TRANSACTIONAL} (the default): the claim, the method's
	 * database writes and the status update commit in one transaction. {@link ClaimMode#LEASED}: for methods that
	 * call systems outside the database (SMS, payment APIs); the claim commits on its own with a lease, SUCCEEDED
	 * is written after the method returns, and the method can pass
	 * {@link dev.idempotent.claim.IdempotencyContext#currentKey()} to the remote API as its idempotency key.
	 * @return the mode
	 */
	ClaimMode mode() default ClaimMode.TRANSACTIONAL;

	/**
	 * The lease of a {@link ClaimMode#LEASED} claim, e.g. {@code "30s"} or {@code "PT2M"}: longer than the method's
	 * longest run. Empty: {@code idempotent.default-lease} (1 minute unless configured). Placeholders are resolved.
	 * @return the lease duration, or empty for the default
	 */
	String lease() default "";

	/**
	 * Whether the records of one poll share one transaction (group commit, docs/semantics.md "Group commit"): a
	 * single-record listener's poll is claimed in one round trip, the method runs once per newly claimed record, and
	 * one commit covers them all, before the offsets. {@link GroupCommit#DEFAULT}: as {@code idempotent.group-commit.enabled}
	 * says (off unless configured; a listener it cannot serve then runs record by record). {@link GroupCommit#ENABLED} on a
	 * listener it cannot serve (a batch listener, LEASED mode, an {@code Acknowledgment} parameter, a listener error
	 * handler, manual acknowledgment, a Kafka transaction) stops the application at startup.
	 * @return the group commit choice of this listener
	 * @since 0.1.0
	 */
	GroupCommit groupCommit() default GroupCommit.DEFAULT;

	/**
	 * Whether what the method sends through Spring's {@code KafkaTemplate} while it runs under its claim is captured:
	 * stored with the claim in its transaction, awaited before the offset commit, and sent again (in order, with its
	 * headers) when a redelivery is an idempotent hit. {@code true} (the default) unless
	 * {@code idempotent.outputs.enabled=false}. {@code false}: a hit sends nothing and an output lost in a crash after
	 * the commit is lost; the first send logs one WARN. In LEASED mode the outputs are stored by the completion step.
	 * @return whether outputs are captured
	 * @since 0.1.0
	 */
	boolean outputs() default true;

}
