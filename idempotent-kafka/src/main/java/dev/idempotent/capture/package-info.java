/**
 * Capture of what an {@code @IdempotentListener} method sends: records sent through Spring's {@code KafkaTemplate}
 * on the listener thread while it runs under a claim are stored with the claim, awaited before the offset commit and
 * sent again when a redelivery of the key is an idempotent hit (docs/semantics.md, "Outputs").
 */
@NullMarked
package dev.idempotent.capture;

import org.jspecify.annotations.NullMarked;
