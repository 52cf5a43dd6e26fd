/**
 * The database floor of the listener shapes that the benchmark compares: their database work alone, on plain JDBC, which
 * bounds what any implementation of each shape can reach on the same machine. Not published.
 */
@NullMarked
package dev.idempotent.benchmarks.floor;

import org.jspecify.annotations.NullMarked;
