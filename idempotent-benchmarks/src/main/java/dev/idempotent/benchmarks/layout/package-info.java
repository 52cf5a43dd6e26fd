/**
 * The layouts of the idempotency table the benchmarks compare: the shipped one, unique on (scope, idempotency_key),
 * and a compact one, unique on a SHA-256 digest of the two.
 */
@NullMarked
package dev.idempotent.benchmarks.layout;

import org.jspecify.annotations.NullMarked;
