/**
 * A payment-clearing consumer on {@code @IdempotentListener}: order-paid events credit a ledger row and write
 * a notification outbox row in one transaction with the claim; a demo stream with producer re-sends and a
 * full replay ends with a reconciliation line.
 */
@NullMarked
package dev.idempotent.sample;

import org.jspecify.annotations.NullMarked;
