package dev.idempotent.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of claims, their names and keys. With the default conventions:
 * <ul>
 * <li>{@link #CLAIM}, named {@value DefaultClaimObservationConvention#NAME}: one per claim of a record (or of an
 * {@code IdempotentTemplate} call), from the claim's start to its commit, and one per rejected key; contextual name
 * (the span name) {@code idempotent <outcome>}, such as {@code idempotent hit}.</li>
 * <li>{@link #BATCH_CLAIM}, named {@value DefaultBatchClaimObservationConvention#NAME}: one per batch claimed in one
 * transaction; contextual name {@code idempotent batch <outcome>}.</li>
 * </ul>
 * Inside a listener container with {@code spring.kafka.listener.observation-enabled=true}, both are children of
 * spring-kafka's observation of the delivery (the listener span).
 *
 * @since 0.1.0
 */
public enum ClaimObservationDocumentation implements ObservationDocumentation {

	/** One claim of one key. */
	CLAIM {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultClaimObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeys.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { HighCardinalityKeys.KEY, HighCardinalityKeys.SOURCE };
		}

	},

	/** One batch claim: every key of a batch claimed in one transaction. */
	BATCH_CLAIM {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultBatchClaimObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeys.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return new KeyName[] { HighCardinalityKeys.SOURCE, HighCardinalityKeys.BATCH_SIZE,
					HighCardinalityKeys.BATCH_CLAIMED, HighCardinalityKeys.BATCH_HITS };
		}

	};

	/**
	 * Keys with few values, on metrics and spans.
	 */
	public enum LowCardinalityKeys implements KeyName {

		/** The scope keys are claimed in (by default the consumer group id). */
		SCOPE {
			@Override
			public String asString() {
				return "idempotent.scope";
			}
		},

		/** {@code transactional} or {@code leased}; {@code none} for a rejected key. */
		MODE {
			@Override
			public String asString() {
				return "idempotent.mode";
			}
		},

		/**
		 * {@code claimed}, {@code reclaimed}, {@code hit}, {@code conflict}, {@code rejected}, {@code in-progress} or
		 * {@code failed} (see {@link ClaimObservationContext.Outcome}).
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "idempotent.outcome";
			}
		}

	}

	/**
	 * Keys with unbounded values, on spans only.
	 */
	public enum HighCardinalityKeys implements KeyName {

		/** The idempotency key as the application's masker renders it (masked by default). */
		KEY {
			@Override
			public String asString() {
				return "idempotent.key";
			}
		},

		/** Where the record came from, {@code topic-partition@offset}; for a batch, the offset range per partition. */
		SOURCE {
			@Override
			public String asString() {
				return "idempotent.source";
			}
		},

		/** How many records the batch held. */
		BATCH_SIZE {
			@Override
			public String asString() {
				return "idempotent.batch.size";
			}
		},

		/** How many records of the batch were claimed and processed. */
		BATCH_CLAIMED {
			@Override
			public String asString() {
				return "idempotent.batch.claimed";
			}
		},

		/** How many records of the batch were hits. */
		BATCH_HITS {
			@Override
			public String asString() {
				return "idempotent.batch.hits";
			}
		}

	}

}
