package dev.idempotent.kafka;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.InvalidKeyReason;

/**
 * Which {@link IdempotentListener} method each scope belongs to. {@link ListenerScopes} registers at startup every
 * scope it could resolve; a delivery whose method takes its consumer group id implicitly checks that group id here
 * (the safety net for group ids that cannot be resolved at startup: a container customizer, an unusual consumer
 * factory). The first method to meet an unregistered implicit scope owns it. Thread-safe.
 */
final class ScopeOwners {

	private final Map<String, Owner> owners = new ConcurrentHashMap<>();

	/**
	 * Register a scope resolved at startup; the first registration of a scope wins.
	 * @param scope the scope
	 * @param method the method that uses it
	 * @param explicit whether the method declares it ({@code @IdempotentListener(scope)}) rather than taking its
	 * consumer group id
	 */
	void register(String scope, ListenerMethod method, boolean explicit) {
		this.owners.putIfAbsent(scope, new Owner(method, explicit));
	}

	/**
	 * Return the implicit scope of a delivery to a method: the consumer group id its {@code @KafkaListener} declares
	 * (as resolved at startup), whatever group the delivering container runs in. A container spring-kafka derives from
	 * the listener runs in a group named after the declared one: a {@code @RetryableTopic} retry container's group is
	 * the declared group with the retry topic's suffix. Claiming in that group would make a record that succeeded on a
	 * retry topic unknown to the main topic's scope, and a replay of the main topic would process it again. So a group
	 * id the method registered at startup is its own scope; a group id that extends one it registered (the longest)
	 * is mapped to that one; any other group id (one that could not be resolved at startup) is the scope itself.
	 * @param groupId the consumer group id of the delivering container
	 * @param method the method the record is delivered to
	 * @return the scope to claim in, never {@code null}
	 */
	String implicitScope(String groupId, ListenerMethod method) {
		Owner exact = this.owners.get(groupId);
		if (exact != null && exact.method() == method && !exact.explicit()) {
			return groupId;
		}
		String declared = null;
		for (Map.Entry<String, Owner> entry : this.owners.entrySet()) {
			String scope = entry.getKey();
			Owner owner = entry.getValue();
			if (owner.method() == method && !owner.explicit() && groupId.startsWith(scope)
					&& (declared == null || scope.length() > declared.length())) {
				declared = scope;
			}
		}
		return (declared != null) ? declared : groupId;
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

	private record Owner(ListenerMethod method, boolean explicit) {
	}

}
