package dev.idempotent.sample;

import java.time.Instant;

/**
 * A payment for an order was cleared.
 *
 * @param orderId the business key of the order
 * @param amountMinor the amount in minor units (cents)
 * @param currency the ISO 4217 currency code
 * @param paidAt when the payment was made
 */
public record OrderPaid(String orderId, long amountMinor, String currency, Instant paidAt) {
}
