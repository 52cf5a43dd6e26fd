/**
 * The Kafka glue: {@link dev.idempotent.kafka.IdempotentListener}, the advice that runs a listener method
 * under a claim, capture of the current record, key expressions and dead-letter headers for rejected keys.
 */
@NullMarked
package dev.idempotent.kafka;

import org.jspecify.annotations.NullMarked;
