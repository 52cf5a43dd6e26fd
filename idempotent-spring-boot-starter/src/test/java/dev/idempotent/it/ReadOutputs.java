package dev.idempotent.it;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.OutputStore;
import dev.idempotent.output.StoredOutput;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * The application's output store, watched: the most bytes of outputs one read returned, which is what a replay holds
 * in memory at once. Installed on the store bean by {@link #installer()}.
 */
final class ReadOutputs implements OutputStore {

	static final AtomicLong largestRead = new AtomicLong();

	private final OutputStore store;

	private ReadOutputs(OutputStore store) {
		this.store = store;
	}

	static BeanPostProcessor installer() {
		return new BeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				return (bean instanceof OutputStore store) ? new ReadOutputs(store) : bean;
			}
		};
	}

	@Override
	public void store(ClaimRequest claim, int firstSequence, List<StoredOutput> outputs) {
		this.store.store(claim, firstSequence, outputs);
	}

	@Override
	public List<StoredOutput> load(String scope, String key) {
		return read(this.store.load(scope, key));
	}

	@Override
	public List<StoredOutput> load(String scope, String key, int fromSequence, int maxCount) {
		return read(this.store.load(scope, key, fromSequence, maxCount));
	}

	@Override
	public Map<String, List<StoredOutput>> loadAll(String scope, Collection<String> keys) {
		Map<String, List<StoredOutput>> outputs = this.store.loadAll(scope, keys);
		read(outputs.values().stream().flatMap(List::stream).toList());
		return outputs;
	}

	@Override
	public Map<String, Long> sizes(String scope, Collection<String> keys) {
		return this.store.sizes(scope, keys);
	}

	@Override
	public Set<String> keysWithOutputs(String scope, Collection<String> keys) {
		return this.store.keysWithOutputs(scope, keys);
	}

	private static List<StoredOutput> read(List<StoredOutput> outputs) {
		largestRead.accumulateAndGet(outputs.stream().mapToLong(StoredOutput::size).sum(), Math::max);
		return outputs;
	}

}
