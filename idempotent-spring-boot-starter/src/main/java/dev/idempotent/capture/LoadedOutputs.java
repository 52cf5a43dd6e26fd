package dev.idempotent.capture;

import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.output.StoredOutput;
import org.jspecify.annotations.Nullable;

/**
 * The stored outputs of the hits of one batch or group commit, loaded together ({@link ClaimOutputs#load}) so that
 * a batch of hits costs one statement instead of one per hit. Immutable; thread-safe.
 *
 * @since 0.2.0
 */
public final class LoadedOutputs {

	/** Nothing loaded: every replay loads its own outputs. */
	public static final LoadedOutputs NONE = new LoadedOutputs("", Map.of());

	private final String scope;

	private final Map<String, List<StoredOutput>> outputs;

	LoadedOutputs(String scope, Map<String, List<StoredOutput>> outputs) {
		this.scope = scope;
		this.outputs = Map.copyOf(outputs);
	}

	/**
	 * The loaded outputs of a claim.
	 * @param claim the claim, never {@code null}
	 * @return its outputs (empty if it stored none), or {@code null} if they were not loaded here
	 */
	@Nullable List<StoredOutput> of(ClaimRequest claim) {
		return claim.scope().equals(this.scope) ? this.outputs.get(claim.key()) : null;
	}

}
