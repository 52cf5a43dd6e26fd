/**
 * A side-by-side benchmark of idempotent Kafka consumers: the same broker, database, data set and business
 * write, one variant at a time in one process. Not published.
 */
@NullMarked
package dev.idempotent.benchmarks;

import org.jspecify.annotations.NullMarked;
