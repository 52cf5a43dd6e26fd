/**
 * The public face of the Kafka integration: {@link dev.idempotent.kafka.IdempotentListener}, the enums its
 * attributes take, the headers the starter reads and writes, and the exceptions a user meets. The rest lives in
 * packages by concern: {@code method} (what a listener method is: scope, keys, parameters), {@code listener} (the
 * advice and the delivery of records and batches under their claims), {@code group} (group commit), {@code reply}
 * ({@code @SendTo} replies stored with claims), {@code support} (the record and poll bound to the consumer thread),
 * {@code startup} (checks that refuse unsafe setups) and {@code error} (error handling and dead letters). Their
 * public types are public for the starter's other packages and its auto-configuration only: internal, not API.
 */
@NullMarked
package dev.idempotent.kafka;

import org.jspecify.annotations.NullMarked;
