/**
 * The record or poll being delivered, bound to the consumer thread by interceptors the starter adds to each
 * container factory and consumer factory, and what failed on that thread. Internal: public for the starter's other
 * packages only.
 */
@NullMarked
package dev.idempotent.kafka.support;

import org.jspecify.annotations.NullMarked;
