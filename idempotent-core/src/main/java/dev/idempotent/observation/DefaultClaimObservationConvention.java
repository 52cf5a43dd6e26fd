package dev.idempotent.observation;

import dev.idempotent.observation.ClaimObservationDocumentation.HighCardinalityKeys;
import dev.idempotent.observation.ClaimObservationDocumentation.LowCardinalityKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default names and keys of a claim's observation: name {@value #NAME}; contextual name (the span name)
 * {@code idempotent <outcome>}, so that a hit reads {@code idempotent hit} in a trace; low-cardinality keys scope,
 * mode and outcome; high-cardinality keys the masked key and {@code topic-partition@offset}. Keys that do not apply
 * (the source of a non-Kafka claim) are left out of the high-cardinality keys, never of the low-cardinality ones,
 * so that every timer of one name has the same tags. Thread-safe.
 *
 * @since 0.1.0
 */
public class DefaultClaimObservationConvention implements ClaimObservationConvention {

	/** The name of the observation, and of its timer. */
	public static final String NAME = "idempotent.claim";

	/** The value of a key that is not known: the mode of a rejected key, the outcome while the claim runs. */
	protected static final String NONE = "none";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(ClaimObservationContext context) {
		return "idempotent " + outcome(context);
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(ClaimObservationContext context) {
		return KeyValues.of(KeyValue.of(LowCardinalityKeys.SCOPE, context.scope()),
				KeyValue.of(LowCardinalityKeys.MODE,
						(context.mode() != null) ? context.mode().name().toLowerCase(java.util.Locale.ROOT) : NONE),
				KeyValue.of(LowCardinalityKeys.OUTCOME, outcome(context)));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(ClaimObservationContext context) {
		KeyValues values = KeyValues.empty();
		String key = context.maskedKey();
		if (key != null) {
			values = values.and(KeyValue.of(HighCardinalityKeys.KEY, key));
		}
		String source = context.source();
		if (source != null) {
			values = values.and(KeyValue.of(HighCardinalityKeys.SOURCE, source));
		}
		return values;
	}

	/**
	 * Return the outcome's value.
	 * @param context the context
	 * @return the outcome, or {@value #NONE} while the claim runs
	 */
	protected static String outcome(ClaimObservationContext context) {
		return (context.outcome() != null) ? context.outcome().value() : NONE;
	}

}
