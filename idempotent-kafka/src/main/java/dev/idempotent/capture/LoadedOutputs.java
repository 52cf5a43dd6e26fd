package dev.idempotent.capture;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputStore;
import dev.idempotent.output.StoredOutput;
import org.jspecify.annotations.Nullable;

/**
 * The stored outputs of the hits of one batch or group commit, read together ({@link ClaimOutputs#load}) so that a
 * batch of hits costs a statement per {@value #WINDOW} hits instead of one per hit. They are read lazily, a window
 * of {@value #WINDOW} hits at a time, as the hits are replayed in their order: no more than one window's outputs
 * are held in memory, and a failure to read them fails the replay of the hit that needed them. Used by one consumer
 * thread; not thread-safe.
 *
 * @since 0.2.0
 */
public final class LoadedOutputs {

	/** How many hits' outputs one statement reads. */
	static final int WINDOW = 50;

	/** Nothing to read together: every replay reads its own outputs. */
	public static final LoadedOutputs NONE = new LoadedOutputs(null, List.of());

	private final @Nullable OutputStore store;

	private final List<ClaimRequest> claims;

	/** The position of each (scope, key) in {@link #claims} (its first). */
	private final Map<List<String>, Integer> positions = new HashMap<>();

	private int windowEnd;

	private @Nullable String windowScope;

	private Map<String, List<StoredOutput>> window = Map.of();

	LoadedOutputs(@Nullable OutputStore store, List<ClaimRequest> claims) {
		this.store = store;
		this.claims = List.copyOf(claims);
		for (int i = 0; i < this.claims.size(); i++) {
			this.positions.putIfAbsent(id(this.claims.get(i)), i);
		}
	}

	/**
	 * The outputs of a claim, reading its window first if it is not read yet.
	 * @param claim the claim, never {@code null}
	 * @return its outputs (empty if it stored none), or {@code null} if it is not one of these hits, or comes before
	 * the window already read: the caller reads its outputs alone
	 * @throws org.springframework.dao.DataAccessException if reading the window fails
	 */
	@Nullable List<StoredOutput> of(ClaimRequest claim) {
		Integer position = this.positions.get(id(claim));
		if (this.store == null || position == null) {
			return null;
		}
		if (position >= this.windowEnd) {
			read(position);
		}
		return claim.scope().equals(this.windowScope) ? this.window.get(claim.key()) : null;
	}

	/** Read the window of hits from {@code from}: its claims of the first one's scope, in one statement. */
	private void read(int from) {
		int end = Math.min(this.claims.size(), from + WINDOW);
		String scope = this.claims.get(from).scope();
		List<String> keys = this.claims.subList(from, end)
			.stream()
			.filter((claim) -> claim.scope().equals(scope))
			.map(ClaimRequest::key)
			.toList();
		this.window = this.store.loadAll(scope, keys);
		this.windowScope = scope;
		this.windowEnd = end;
	}

	private static List<String> id(ClaimRequest claim) {
		return List.of(claim.scope(), claim.key());
	}

}
