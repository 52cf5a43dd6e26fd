package dev.idempotent.fastpath;

import java.util.Collection;
import java.util.Set;

/**
 * Tells which of the keys a transaction found SUCCEEDED in the database (idempotent hits) must stay out of the fast
 * path because their later hits need the database: a key whose claim stored outputs to send again. The fast path
 * learns a hit's key after its commit, so that Redis knows it again after a flush or a restart; without this check a
 * key with stored outputs, once learnt from a hit, would be answered by the fast path and its outputs never sent
 * again. {@link DatabaseOnlyKeys} covers the claims that store such outputs; this covers the hits on them.
 * <p>Called after the transaction committed, on the thread that committed, once per scope and transaction, before
 * its hits are remembered. Implementations must be thread-safe.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface DatabaseOnlyHits {

	/** No key needs the database: every hit on a SUCCEEDED row is remembered. */
	DatabaseOnlyHits NONE = (scope, keys) -> Set.of();

	/**
	 * Select the keys whose hits must reach the database.
	 * @param scope the scope of the keys, never {@code null}
	 * @param keys keys found SUCCEEDED by the transaction, never {@code null} nor empty
	 * @return those of {@code keys} that must not be remembered, never {@code null}
	 * @throws RuntimeException if it cannot tell (a database error): then none of the hits is remembered
	 */
	Set<String> of(String scope, Collection<String> keys);

}
