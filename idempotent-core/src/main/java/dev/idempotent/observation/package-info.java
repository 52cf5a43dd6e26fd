/**
 * Observing claims as they run: the {@link dev.idempotent.observation.ClaimObserver} hook of the claim executors,
 * free of any framework, and its Micrometer Observation implementation (an observation per claim and per batch
 * claim, documented by {@link dev.idempotent.observation.ClaimObservationDocumentation}), which needs
 * {@code io.micrometer:micrometer-observation} on the class path.
 */
@NullMarked
package dev.idempotent.observation;

import org.jspecify.annotations.NullMarked;
