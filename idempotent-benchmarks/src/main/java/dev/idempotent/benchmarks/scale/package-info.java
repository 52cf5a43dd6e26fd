/**
 * The scale benchmark: the idempotency table filled to tens of millions of rows inside the database, then claims,
 * hits, retention and the periodic queries of operations measured at each size. Not published.
 */
@NullMarked
package dev.idempotent.benchmarks.scale;

import org.jspecify.annotations.NullMarked;
