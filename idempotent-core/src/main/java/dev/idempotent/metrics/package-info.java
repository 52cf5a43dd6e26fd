/**
 * Observing claims: a listener interface with no-op defaults and a Micrometer implementation.
 */
@NullMarked
package dev.idempotent.metrics;

import org.jspecify.annotations.NullMarked;
