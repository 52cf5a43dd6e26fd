/**
 * What an {@link dev.idempotent.kafka.IdempotentListener} method is: its endpoint and parameters, its scope and
 * the source of its keys, read once at startup. Internal: public for the starter's other packages only.
 */
@NullMarked
package dev.idempotent.kafka.method;

import org.jspecify.annotations.NullMarked;
