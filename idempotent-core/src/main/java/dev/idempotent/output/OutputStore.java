package dev.idempotent.output;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import java.util.List;

import dev.idempotent.claim.ClaimRequest;

/**
 * Where the outputs of claims are kept: what a listener sent while it ran under a claim, so that an idempotent hit
 * of the same key can send it again. Outputs are removed together with their claim (by retention).
 * <p>Implementations are thread-safe.
 *
 * @since 0.1.0
 */
public interface OutputStore {

	/**
	 * Store the outputs of a claim, in the transaction active on the business database, so that they commit or roll
	 * back with the claim. Sequence numbers start at {@code firstSequence}, in list order.
	 * @param claim the claim that sent them, never {@code null}
	 * @param firstSequence the sequence number of the first output, 0 for the first outputs of a claim
	 * @param outputs the outputs, in the order they were sent; nothing is written when empty
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 */
	void store(ClaimRequest claim, int firstSequence, List<StoredOutput> outputs);

	/**
	 * Load the outputs of a key, in the order they were sent.
	 * @param scope the claim's scope, never {@code null}
	 * @param key the claim's idempotency key, never {@code null}
	 * @return the outputs, empty if the claim stored none (or they were removed)
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 */
	List<StoredOutput> load(String scope, String key);

	/**
	 * Load some of the outputs of a key, in the order they were sent: those from a sequence number on, at most a
	 * number of them; for a claim whose outputs are too large to hold at once. The default loads them all and keeps
	 * those.
	 * @param scope the claim's scope, never {@code null}
	 * @param key the claim's idempotency key, never {@code null}
	 * @param fromSequence the sequence number of the first output to load, 0 or more
	 * @param maxCount the most outputs to load, positive
	 * @return the outputs, empty if there are none from {@code fromSequence} on
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 * @since 0.1.0
	 */
	default List<StoredOutput> load(String scope, String key, int fromSequence, int maxCount) {
		List<StoredOutput> all = load(scope, key);
		return (fromSequence >= all.size()) ? List.of()
				: List.copyOf(all.subList(fromSequence, Math.min(all.size(), fromSequence + maxCount)));
	}

	/**
	 * Tell how many bytes the stored outputs of several keys of one scope take (keys, values and headers), in as few
	 * statements as the store allows, without loading them; so that a replay loads no more at once than it may hold.
	 * The default loads them.
	 * @param scope the claims' scope, never {@code null}
	 * @param keys the claims' idempotency keys, never {@code null}
	 * @return per key with stored outputs, their size in bytes; never {@code null}
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 * @since 0.1.0
	 */
	default Map<String, Long> sizes(String scope, Collection<String> keys) {
		Map<String, Long> sizes = new HashMap<>();
		loadAll(scope, keys).forEach((key, outputs) -> {
			long size = outputs.stream().mapToLong(StoredOutput::size).sum();
			if (size > 0) {
				sizes.put(key, size);
			}
		});
		return sizes;
	}

	/**
	 * Load the outputs of several keys of one scope, in as few statements as the store allows (the JDBC store: one
	 * per {@value JdbcOutputStore#MAX_KEYS} keys); for the hits of a batch, which would otherwise cost a statement
	 * each. The default loads key by key.
	 * @param scope the claims' scope, never {@code null}
	 * @param keys the claims' idempotency keys, never {@code null}; repeats are loaded once
	 * @return per key asked for, its outputs in the order they were sent (an empty list for a key without outputs);
	 * never {@code null}
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 */
	default Map<String, List<StoredOutput>> loadAll(String scope, Collection<String> keys) {
		return loadEach(this, scope, keys);
	}

	/**
	 * Tell which of several keys of one scope have stored outputs, in as few statements as the store allows; for the
	 * fast path, which must not learn such keys from their hits. The default loads their outputs.
	 * @param scope the claims' scope, never {@code null}
	 * @param keys the claims' idempotency keys, never {@code null}
	 * @return those of {@code keys} with at least one stored output, never {@code null}
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 */
	default Set<String> keysWithOutputs(String scope, Collection<String> keys) {
		Set<String> found = new HashSet<>();
		loadAll(scope, keys).forEach((key, outputs) -> {
			if (!outputs.isEmpty()) {
				found.add(key);
			}
		});
		return found;
	}

	private static Map<String, List<StoredOutput>> loadEach(OutputStore store, String scope, Collection<String> keys) {
		Map<String, List<StoredOutput>> outputs = new HashMap<>();
		for (String key : keys) {
			outputs.computeIfAbsent(key, (k) -> store.load(scope, k));
		}
		return outputs;
	}

}
