/**
 * The advice around an {@link dev.idempotent.kafka.IdempotentListener} method and the delivery of records and
 * batches under their claims: claim, capture the outputs, run the method, store, then after the commit settle the
 * outputs ({@link dev.idempotent.kafka.listener.DeliveryOutputs}) and pass the acknowledgment on. Internal: public
 * for the starter's other packages only.
 */
@NullMarked
package dev.idempotent.kafka.listener;

import org.jspecify.annotations.NullMarked;
