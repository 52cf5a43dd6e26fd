package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.claim.PayloadFingerprint;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.KeyValidator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.KafkaUtils;
import org.springframework.util.StringUtils;

/**
 * What one {@link IdempotentListener} method claims: its key source, prefix and scope, resolved once when the
 * listener bean is created, so that a bad expression fails at startup and the per-record path does no
 * reflection.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class ListenerMethod {

	/** The length of the scope column in the shipped DDL. */
	static final int MAX_SCOPE_LENGTH = 128;

	private final Method method;

	private final KeySource keySource;

	private final String prefix;

	private final @Nullable String scope;

	private final KeyValidator validator;

	private final KafkaEndpoint endpoint;

	private final ClaimMode mode;

	private final Duration lease;

	private final boolean fingerprints;

	private final ScopeOwners owners;

	private final boolean outputs;

	/** The method's generic signature, named in messages of every delivery: rendered once. */
	private final String name;

	private ListenerMethod(Method method, KeySource keySource, String prefix, @Nullable String scope,
			KeyValidator validator, KafkaEndpoint endpoint, ClaimMode mode, Duration lease, boolean fingerprints,
			ScopeOwners owners, boolean outputs) {
		this.method = method;
		this.keySource = keySource;
		this.prefix = prefix;
		this.scope = scope;
		this.validator = validator;
		this.endpoint = endpoint;
		this.mode = mode;
		this.lease = lease;
		this.fingerprints = fingerprints;
		this.owners = owners;
		this.outputs = outputs;
		this.name = method.toGenericString();
	}

	/**
	 * Resolve a listener method.
	 * @param method the annotated method
	 * @param annotation its annotation
	 * @param resolvedScope the annotation's scope with placeholders resolved (empty for the group id)
	 * @param defaultKeyHeader the header to read when the annotation has no key expression
	 * @param validator the key rules
	 * @param endpoint the method's Kafka listener
	 * @param lease the lease of a LEASED claim
	 * @param fingerprints whether claims carry the fingerprint of the record's value
	 * @param owners which method each scope belongs to, checked when a delivery takes its consumer group id
	 * @throws IllegalArgumentException if the key expression does not parse
	 */
	static ListenerMethod of(Method method, IdempotentListener annotation, String resolvedScope,
			String defaultKeyHeader, KeyValidator validator, KafkaEndpoint endpoint, Duration lease,
			boolean fingerprints, ScopeOwners owners) {
		KeySource source = StringUtils.hasText(annotation.key()) ? ExpressionKeySource.of(annotation.key(), method)
				: new HeaderKeySource(defaultKeyHeader);
		return new ListenerMethod(method, source, annotation.prefix(),
				StringUtils.hasText(resolvedScope) ? resolvedScope : null, validator, endpoint, annotation.mode(), lease,
				fingerprints, owners, annotation.outputs());
	}

	/**
	 * Return whether the method's outputs are captured, as its annotation says (the global switch aside).
	 * @return {@code false} if the method opted out
	 */
	public boolean capturesOutputs() {
		return this.outputs;
	}

	/**
	 * Return the annotated method, as declared on the listener's class.
	 * @return the method
	 */
	public Method method() {
		return this.method;
	}

	/**
	 * Return the scope the annotation declares, placeholders resolved.
	 * @return the explicit scope, or {@code null} when the method takes its consumer group id
	 */
	public @Nullable String explicitScope() {
		return this.scope;
	}

	/**
	 * Return how the claim relates to the method.
	 * @return the mode
	 */
	public ClaimMode mode() {
		return this.mode;
	}

	/**
	 * Return the lease of a LEASED claim.
	 * @return the lease, positive
	 */
	public Duration lease() {
		return this.lease;
	}

	/**
	 * Return the method's Kafka listener.
	 * @return the endpoint
	 */
	public KafkaEndpoint endpoint() {
		return this.endpoint;
	}

	/**
	 * Return the scope of this delivery: the configured one, or the consumer group id of the current thread (a
	 * {@code @RetryableTopic} listener that names its group must configure its scope, see {@link ListenerScopes}). A
	 * group id taken implicitly must belong to this method alone, and a configured scope must not be another
	 * method's group id (see {@link ScopeOwners}).
	 * @throws IllegalStateException if no scope is configured and no consumer group id is bound
	 * @throws dev.idempotent.key.InvalidIdempotencyKeyException with reason
	 * {@link dev.idempotent.key.InvalidKeyReason#SCOPE_CONFLICT} if the group id is already the scope of another
	 * method, or the configured scope is another method's group id
	 */
	public String scope() {
		if (this.scope != null) {
			this.owners.claimExplicit(this.scope, this);
			return this.scope;
		}
		String groupId = KafkaUtils.getConsumerGroupId();
		if (!StringUtils.hasText(groupId)) {
			throw new IllegalStateException("No consumer group id on this thread for " + this.method.toGenericString()
					+ "; set a groupId on the listener or a scope on @IdempotentListener");
		}
		checkScope(groupId, this.method::toGenericString);
		this.owners.claimImplicit(groupId, this);
		return groupId;
	}

	/**
	 * Check a scope against the scope column: at most {@value #MAX_SCOPE_LENGTH} characters, no NUL.
	 * @throws IllegalArgumentException naming the method if the scope cannot be stored
	 */
	static void checkScope(String scope, Supplier<String> method) {
		if (scope.codePointCount(0, scope.length()) > MAX_SCOPE_LENGTH || scope.indexOf('\u0000') >= 0) {
			throw new IllegalArgumentException("The scope of " + method.get() + " ('" + scope + "') cannot be stored: at most "
					+ MAX_SCOPE_LENGTH + " characters, no NUL; set a shorter scope on @IdempotentListener");
		}
	}

	/**
	 * Build the claim request for a delivery.
	 * @throws dev.idempotent.key.InvalidIdempotencyKeyException if the key is bad input
	 */
	public ClaimRequest request(String scope, ConsumerRecord<?, ?> record, @Nullable Object[] arguments) {
		Object raw = this.keySource.rawKey(record, arguments);
		String key = this.validator.validate(raw, this.prefix, this.keySource.description());
		return new ClaimRequest(scope, key, new DeliverySource(record.topic(), record.partition(), record.offset()),
				this.fingerprints ? PayloadFingerprint.of(record.value()) : null);
	}

	/**
	 * The claim request of another record of the poll, for {@code PollPrefetch}: produced as {@link #request}, from
	 * {@link KeySource#argumentsOf} the delivered arguments.
	 * @return the request, or {@code null} when its key cannot be produced or is not valid (never thrown: the
	 * record's own delivery reports it)
	 */
	public @Nullable ClaimRequest requestOfPolled(String scope, ConsumerRecord<?, ?> polled, @Nullable Object[] delivered) {
		try {
			@Nullable Object[] arguments = this.keySource.argumentsOf(polled, delivered);
			return (arguments != null) ? request(scope, polled, arguments) : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	@Override
	public String toString() {
		return this.name;
	}

}
