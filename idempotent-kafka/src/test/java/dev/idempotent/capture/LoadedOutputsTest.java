package dev.idempotent.capture;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputStore;
import dev.idempotent.output.StoredOutput;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the hits of a batch have their outputs read: windows of hits whose outputs fit in the replay buffer together,
 * and a hit whose outputs alone do not fit left to be read a part at a time. The store is an in-memory one (the
 * JDBC store's statements are tested on every database by {@code AbstractOutputStoreContractTest}).
 */
class LoadedOutputsTest {

	private final MemoryStore store = new MemoryStore();

	@Test
	void hitsAreReadTogetherAsLongAsTheirOutputsFitInTheBuffer() {
		List<ClaimRequest> hits = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			hits.add(hit("k" + i, 400));
		}
		LoadedOutputs loaded = new LoadedOutputs(this.store, hits, 1_000);

		for (ClaimRequest hit : hits) {
			assertThat(loaded.of(hit)).hasSize(1);
		}
		assertThat(this.store.reads).containsExactly(List.of("k0", "k1"), List.of("k2", "k3"), List.of("k4", "k5"));
		assertThat(this.store.largestRead).isLessThanOrEqualTo(1_000);
	}

	@Test
	void aHitWhoseOutputsAloneDoNotFitIsLeftToItsOwnReplay() {
		List<ClaimRequest> hits = List.of(hit("small-1", 100), hit("large", 5_000), hit("small-2", 100));
		LoadedOutputs loaded = new LoadedOutputs(this.store, hits, 1_000);

		assertThat(loaded.of(hits.get(0))).hasSize(1);
		assertThat(loaded.of(hits.get(1))).as("read a part at a time by its replay").isNull();
		assertThat(loaded.of(hits.get(2))).hasSize(1);
		assertThat(this.store.reads).containsExactly(List.of("small-1"), List.of("small-2"));
	}

	@Test
	void hitsWithoutOutputsCostNothing() {
		List<ClaimRequest> hits = List.of(new ClaimRequest("scope", "none-1", null), hit("some", 100),
				new ClaimRequest("scope", "none-2", null));
		LoadedOutputs loaded = new LoadedOutputs(this.store, hits, 1_000);

		assertThat(loaded.of(hits.get(0))).isEmpty();
		assertThat(loaded.of(hits.get(1))).hasSize(1);
		assertThat(this.store.reads).containsExactly(List.of("none-1", "some", "none-2"));
	}

	private ClaimRequest hit(String key, int bytes) {
		this.store.outputs.put(key, List.of(new StoredOutput("out", null, null, new byte[bytes], List.of())));
		return new ClaimRequest("scope", key, null);
	}

	/** Outputs in memory, remembering which keys each read asked for. */
	private static final class MemoryStore implements OutputStore {

		final Map<String, List<StoredOutput>> outputs = new HashMap<>();

		final List<List<String>> reads = new ArrayList<>();

		long largestRead;

		@Override
		public void store(ClaimRequest claim, int firstSequence, List<StoredOutput> outputs) {
			throw new UnsupportedOperationException();
		}

		@Override
		public List<StoredOutput> load(String scope, String key) {
			return this.outputs.getOrDefault(key, List.of());
		}

		@Override
		public Map<String, List<StoredOutput>> loadAll(String scope, Collection<String> keys) {
			this.reads.add(List.copyOf(keys));
			Map<String, List<StoredOutput>> read = new HashMap<>();
			long bytes = 0;
			for (String key : keys) {
				read.put(key, load(scope, key));
				bytes += load(scope, key).stream().mapToLong(StoredOutput::size).sum();
			}
			this.largestRead = Math.max(this.largestRead, bytes);
			return read;
		}

		@Override
		public Map<String, Long> sizes(String scope, Collection<String> keys) {
			Map<String, Long> sizes = new HashMap<>();
			for (String key : keys) {
				List<StoredOutput> stored = load(scope, key);
				if (!stored.isEmpty()) {
					sizes.put(key, stored.stream().mapToLong(StoredOutput::size).sum());
				}
			}
			return sizes;
		}

	}

}
