package dev.idempotent.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and keys of the observation of a batch claim ({@link ClaimObservationDocumentation#BATCH_CLAIM}). Define a
 * bean of this type to replace {@link DefaultBatchClaimObservationConvention}.
 *
 * @since 0.1.0
 */
public interface BatchClaimObservationConvention extends ObservationConvention<ClaimObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof ClaimObservationContext claim && claim.isBatch();
	}

}
