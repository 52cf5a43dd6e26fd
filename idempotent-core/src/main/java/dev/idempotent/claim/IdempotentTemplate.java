package dev.idempotent.claim;

import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.KeyValidator;
import dev.idempotent.metrics.ClaimListener;
import org.jspecify.annotations.Nullable;

/**
 * Runs any callback under the same claim as {@code @IdempotentListener}, for callers that are not Kafka
 * listeners: an HTTP handler taking an {@code Idempotency-Key} header, a RabbitMQ or JMS listener, a batch job.
 * In the spirit of Spring's {@code TransactionTemplate}:
 * <pre class="code">
 * ClaimOutcome&lt;Receipt&gt; outcome = idempotent.execute("payments-api", request.getHeader("Idempotency-Key"),
 *         () -&gt; ledger.credit(order));
 * if (outcome instanceof ClaimOutcome.Skipped&lt;Receipt&gt; skipped) { return alreadyProcessed(skipped.hit()); }
 * </pre>
 * The key is validated with the same rules, the claim and the callback's writes share one
 * transaction, hits are logged and counted, and the outcome says which happened. Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotentTemplate {

	private final TransactionalClaimExecutor executor;

	private final KeyValidator validator;

	private final ClaimListener listener;

	/**
	 * Create a template.
	 * @param executor runs the claim and the callback in one transaction
	 * @param validator the key rules
	 * @param listener observes rejected keys (claims and hits are observed by the executor's listener)
	 */
	public IdempotentTemplate(TransactionalClaimExecutor executor, KeyValidator validator, ClaimListener listener) {
		this.executor = executor;
		this.validator = validator;
		this.listener = listener;
	}

	/**
	 * Run {@code work} once per (scope, key).
	 * @param scope the scope keys are unique in, e.g. the calling service; never blank
	 * @param key the idempotency key: a String, number, UUID or UTF-8 bytes; may be {@code null} (rejected)
	 * @param work the work, run in the claim's transaction when the key is new
	 * @param <T> the work's result type
	 * @return {@link ClaimOutcome.Processed} with the work's result, or {@link ClaimOutcome.Skipped} for a hit
	 * @throws InvalidIdempotencyKeyException if the key is null, blank, too long or of an unsupported type
	 * @throws ClaimedWorkException wrapping a checked exception of the work (after the rollback)
	 * @throws RuntimeException any unchecked exception of the work or the database, unchanged
	 */
	public <T extends @Nullable Object> ClaimOutcome<T> execute(String scope, @Nullable Object key,
			ClaimedWork<T> work) {
		String validKey;
		try {
			validKey = this.validator.validate(key, "the caller");
		}
		catch (InvalidIdempotencyKeyException ex) {
			this.listener.onRejected(scope, ex);
			throw ex;
		}
		try {
			return this.executor.execute(new ClaimRequest(scope, validKey, null), work);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new ClaimedWorkException(ex);
		}
	}

	/**
	 * A checked exception thrown by the work of {@link IdempotentTemplate#execute}; the transaction was rolled back.
	 */
	public static class ClaimedWorkException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		ClaimedWorkException(Throwable cause) {
			super(cause.getMessage(), cause);
		}

	}

}
