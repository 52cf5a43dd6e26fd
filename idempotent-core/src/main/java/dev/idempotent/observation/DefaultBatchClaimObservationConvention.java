package dev.idempotent.observation;

import dev.idempotent.observation.ClaimObservationDocumentation.HighCardinalityKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default names and keys of a batch claim's observation: name {@value #NAME}; contextual name
 * {@code idempotent batch <outcome>} (outcome {@code claimed} when at least one record was claimed, {@code hit}
 * when every record was a hit, {@code failed}); the low-cardinality keys of {@link DefaultClaimObservationConvention};
 * high-cardinality keys the batch's size, its claimed and hit counts, and the offset range per topic-partition.
 * Thread-safe.
 *
 * @since 0.1.0
 */
public class DefaultBatchClaimObservationConvention implements BatchClaimObservationConvention {

	/** The name of the observation, and of its timer. */
	public static final String NAME = "idempotent.claim.batch";

	private final DefaultClaimObservationConvention claims = new DefaultClaimObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(ClaimObservationContext context) {
		return "idempotent batch " + DefaultClaimObservationConvention.outcome(context);
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(ClaimObservationContext context) {
		return this.claims.getLowCardinalityKeyValues(context);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(ClaimObservationContext context) {
		KeyValues values = KeyValues.of(KeyValue.of(HighCardinalityKeys.BATCH_SIZE, String.valueOf(context.requests().size())),
				KeyValue.of(HighCardinalityKeys.BATCH_CLAIMED, String.valueOf(context.claimedCount())),
				KeyValue.of(HighCardinalityKeys.BATCH_HITS, String.valueOf(context.hitCount())));
		String source = context.source();
		return (source != null) ? values.and(KeyValue.of(HighCardinalityKeys.SOURCE, source)) : values;
	}

}
