package dev.idempotent.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and keys of the observation of one claim ({@link ClaimObservationDocumentation#CLAIM}). Define a bean of this
 * type to replace {@link DefaultClaimObservationConvention}, or extend the default to add keys.
 *
 * @since 0.1.0
 */
public interface ClaimObservationConvention extends ObservationConvention<ClaimObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof ClaimObservationContext claim && !claim.isBatch();
	}

}
