package dev.idempotent.capture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputStore;
import dev.idempotent.output.StoredOutput;
import org.jspecify.annotations.Nullable;

/**
 * The stored outputs of the hits of one batch or group commit, read together ({@link ClaimOutputs#load}) so that a
 * batch of hits costs two statements (their sizes, then their outputs) per window of hits instead of one per hit.
 * They are read lazily, a window at a time, as the hits are replayed in their order: a window holds up to
 * {@value #WINDOW} hits whose outputs take no more than the replay buffer together, so no more than that is held in
 * memory; a hit whose outputs alone take more is left out, and its replay reads them a part at a time. A failure to
 * read fails the replay of the hit that needed them. Used by one consumer thread; not thread-safe.
 *
 * @since 0.1.0
 */
public final class LoadedOutputs {

	/** How many hits' outputs one statement reads. */
	static final int WINDOW = 50;

	/** Nothing to read together: every replay reads its own outputs. */
	public static final LoadedOutputs NONE = new LoadedOutputs(null, List.of(), 1);

	private final @Nullable OutputStore store;

	private final List<ClaimRequest> claims;

	private final long buffer;

	/** The position of each (scope, key) in {@link #claims} (its first). */
	private final Map<List<String>, Integer> positions = new HashMap<>();

	private int windowEnd;

	private @Nullable String windowScope;

	private Map<String, List<StoredOutput>> window = Map.of();

	LoadedOutputs(@Nullable OutputStore store, List<ClaimRequest> claims, long buffer) {
		this.store = store;
		this.claims = List.copyOf(claims);
		this.buffer = buffer;
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

	/**
	 * Read the window of hits from {@code from}: its claims of the first one's scope whose outputs fit in the buffer
	 * together (one statement for their sizes, one for their outputs); a claim whose outputs alone do not fit is left
	 * out (its replay reads it alone, a part at a time).
	 */
	private void read(int from) {
		int end = Math.min(this.claims.size(), from + WINDOW);
		String scope = this.claims.get(from).scope();
		List<String> candidates = this.claims.subList(from, end)
			.stream()
			.filter((claim) -> claim.scope().equals(scope))
			.map(ClaimRequest::key)
			.toList();
		Map<String, Long> sizes = this.store.sizes(scope, candidates);
		List<String> keys = new ArrayList<>();
		long held = 0;
		for (int i = from; i < end; i++) {
			ClaimRequest claim = this.claims.get(i);
			if (!claim.scope().equals(scope)) {
				continue;
			}
			long size = sizes.getOrDefault(claim.key(), 0L);
			if (held + size > this.buffer) {
				if (keys.isEmpty()) {
					end = i + 1; // too large alone: not read here
				}
				else {
					end = i;
				}
				break;
			}
			keys.add(claim.key());
			held += size;
		}
		this.window = keys.isEmpty() ? Map.of() : this.store.loadAll(scope, keys);
		this.windowScope = scope;
		this.windowEnd = end;
	}

	private static List<String> id(ClaimRequest claim) {
		return List.of(claim.scope(), claim.key());
	}

}
