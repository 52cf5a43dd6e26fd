package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.KeyValidator;
import org.jspecify.annotations.Nullable;

import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Resolves and caches the {@link ListenerMethod} of each {@link IdempotentListener} method. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ListenerMethods {

	private final Map<Method, ListenerMethod> cache = new ConcurrentHashMap<>();

	private final String defaultKeyHeader;

	private final KeyValidator validator;

	private final @Nullable StringValueResolver placeholders;

	private final Duration defaultLease;

	private volatile boolean fingerprints;

	private final ScopeOwners owners = new ScopeOwners();

	/**
	 * Create a resolver.
	 * @param defaultKeyHeader the header that holds the key when a listener has no key expression
	 * @param validator the key rules
	 * @param placeholders resolves {@code ${...}} in annotation attributes, or {@code null} to take them literally
	 * @param defaultLease the lease of LEASED claims whose annotation names none
	 */
	public ListenerMethods(String defaultKeyHeader, KeyValidator validator, @Nullable StringValueResolver placeholders,
			Duration defaultLease) {
		this.defaultKeyHeader = defaultKeyHeader;
		this.validator = validator;
		this.placeholders = placeholders;
		this.defaultLease = defaultLease;
	}

	/**
	 * Set whether claims carry the fingerprint of the record's value ({@link dev.idempotent.claim.PayloadFingerprint}
	 * of {@code ConsumerRecord.value()}), so that a hit with a different payload is reported as a conflict. Call
	 * before the first delivery.
	 * @param fingerprints whether to fingerprint payloads; off by default
	 */
	public void setFingerprints(boolean fingerprints) {
		this.fingerprints = fingerprints;
	}

	/**
	 * Return the resolved listener method for an annotated method.
	 * @param method the method declared on the listener's class
	 * @throws IllegalArgumentException if the method is not annotated, cannot be proxied, or its key
	 * expression does not parse
	 */
	public ListenerMethod get(Method method) {
		return this.cache.computeIfAbsent(method, this::resolve);
	}

	private ListenerMethod resolve(Method method) {
		IdempotentListener annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class);
		if (annotation == null) {
			throw new IllegalArgumentException(method.toGenericString() + " is not annotated @IdempotentListener");
		}
		int modifiers = method.getModifiers();
		if (Modifier.isFinal(modifiers) || Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers)) {
			throw new IllegalArgumentException("@IdempotentListener method " + method.toGenericString()
					+ " must be neither private, static nor final: it is called through a proxy");
		}
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			throw new IllegalArgumentException("@IdempotentListener method " + method.toGenericString()
					+ " returns a primitive; a hit returns no value, so return void or an object");
		}
		if (isAsynchronous(returnType)) {
			throw new IllegalArgumentException("@IdempotentListener method " + method.toGenericString()
					+ " returns " + returnType.getName() + ": work that finishes after the method returns would run"
					+ " outside the claim's transaction; do the work before returning");
		}
		String scope = resolve(annotation.scope());
		if (StringUtils.hasText(scope)) {
			ListenerMethod.checkScope(scope, method::toGenericString);
		}
		KafkaEndpoint endpoint = KafkaEndpoint.of(method, this::resolve);
		if (endpoint.batch() && annotation.mode() == ClaimMode.LEASED) {
			throw new IllegalArgumentException("@IdempotentListener method " + method.toGenericString()
					+ " is a batch listener in LEASED mode; LEASED claims are per record: use a single-record listener");
		}
		return ListenerMethod.of(method, annotation, scope, this.defaultKeyHeader, this.validator, endpoint,
				lease(method, annotation), this.fingerprints, this.owners);
	}

	/**
	 * Return every listener method resolved so far, i.e. those of the listener beans created so far.
	 * @return a snapshot, never {@code null}
	 */
	public Collection<ListenerMethod> all() {
		return List.copyOf(this.cache.values());
	}

	/**
	 * Return which method each scope belongs to: filled at startup by {@link ListenerScopes}, and at a delivery
	 * for a group id that could not be resolved at startup.
	 * @return the registry shared by every resolved method
	 */
	public ScopeOwners owners() {
		return this.owners;
	}

	private static boolean isAsynchronous(Class<?> type) {
		if (java.util.concurrent.Future.class.isAssignableFrom(type)
				|| java.util.concurrent.CompletionStage.class.isAssignableFrom(type)) {
			return true;
		}
		for (Class<?> c = type; c != null; c = c.getSuperclass()) {
			for (Class<?> i : c.getInterfaces()) {
				if (i.getName().equals("org.reactivestreams.Publisher")) {
					return true;
				}
			}
		}
		return type.getName().equals("org.reactivestreams.Publisher");
	}

	private Duration lease(Method method, IdempotentListener annotation) {
		String text = resolve(annotation.lease());
		if (!StringUtils.hasText(text)) {
			return this.defaultLease;
		}
		try {
			Duration lease = DurationFormatterUtils.detectAndParse(text);
			if (lease.isNegative() || lease.isZero()) {
				throw new IllegalArgumentException("not positive");
			}
			return lease;
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("@IdempotentListener lease '" + text + "' on " + method.toGenericString()
					+ " is not a positive duration such as '30s' or 'PT2M'", ex);
		}
	}

	private String resolve(String value) {
		String resolved = (this.placeholders != null) ? this.placeholders.resolveStringValue(value) : value;
		return (resolved != null) ? resolved : "";
	}

}
