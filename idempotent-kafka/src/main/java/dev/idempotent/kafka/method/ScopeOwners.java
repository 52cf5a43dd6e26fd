package dev.idempotent.kafka.method;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.InvalidKeyReason;

/**
 * Which {@link IdempotentListener} method each scope belongs to. {@link ListenerScopes} registers at startup every
 * scope it could resolve; a delivery whose method takes its consumer group id implicitly checks that group id here
 * (the safety net for group ids that cannot be resolved at startup: a container customizer, an unusual consumer
 * factory); a delivery whose method declares its scope checks that the scope is no other method's group id (a
 * method resolved after startup). The first method to meet an unregistered scope owns it. Thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class ScopeOwners {

	private final Map<String, Owner> owners = new ConcurrentHashMap<>();

	/**
	 * Register a scope resolved at startup; the first registration of a scope wins.
	 * @param scope the scope
	 * @param method the method that uses it
	 * @param explicit whether the method declares it ({@code @IdempotentListener(scope)}) rather than taking its
	 * consumer group id
	 */
	public void register(String scope, ListenerMethod method, boolean explicit) {
		this.owners.putIfAbsent(scope, new Owner(method, explicit));
	}

	/**
	 * Check that a consumer group id a method takes as its scope belongs to that method, and register it if no
	 * method owns it yet.
	 * @param scope the consumer group id of the delivery
	 * @param method the method about to claim in it
	 * @throws InvalidIdempotencyKeyException with reason {@link InvalidKeyReason#SCOPE_CONFLICT} if another method
	 * owns the scope: the record must not be claimed (its key could be another listener's), it is dead-lettered
	 */
	void claimImplicit(String scope, ListenerMethod method) {
		Owner owner = this.owners.get(scope);
		if (owner == null) {
			owner = this.owners.computeIfAbsent(scope, (s) -> new Owner(method, false));
		}
		if (owner.method() != method) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.SCOPE_CONFLICT, "@IdempotentListener method "
					+ method + " takes its consumer group id '" + scope + "' as scope, but that scope already belongs to "
					+ owner.method() + (owner.explicit() ? " (declared there)" : " (its consumer group id)")
					+ ": their keys would merge and this record could be skipped as another listener's hit. Give each"
					+ " method an explicit @IdempotentListener(scope); to keep the keys already stored, give the method"
					+ " that used them scope = \"" + scope + "\"");
		}
	}

	/**
	 * Check that a scope a method declares is not the implicit scope of another method, and register it if no method
	 * owns it yet. Methods that all declare one scope share it on purpose; this catches a method resolved after the
	 * startup check (a lazily created or prototype listener bean) that declares another method's consumer group id.
	 * @param scope the declared scope
	 * @param method the method about to claim in it
	 * @throws InvalidIdempotencyKeyException with reason {@link InvalidKeyReason#SCOPE_CONFLICT} if another method
	 * takes the scope implicitly (its consumer group id)
	 */
	void claimExplicit(String scope, ListenerMethod method) {
		Owner owner = this.owners.get(scope);
		if (owner == null) {
			owner = this.owners.computeIfAbsent(scope, (s) -> new Owner(method, true));
		}
		if (!owner.explicit() && owner.method() != method) {
			throw new InvalidIdempotencyKeyException(InvalidKeyReason.SCOPE_CONFLICT, "@IdempotentListener method "
					+ method + " declares scope = \"" + scope + "\", but that scope is the consumer group id "
					+ owner.method() + " takes as its scope: their keys would merge and this record could be skipped as"
					+ " another listener's hit. Give that method an explicit @IdempotentListener(scope) too, or declare"
					+ " another scope here");
		}
	}

	private record Owner(ListenerMethod method, boolean explicit) {
	}

}
