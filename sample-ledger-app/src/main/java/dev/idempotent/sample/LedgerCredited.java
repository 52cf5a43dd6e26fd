package dev.idempotent.sample;

/**
 * The event the ledger publishes once it credited an order: downstream services (statements, loyalty points) consume
 * it. It is sent under the order's claim, so the library stores it with the claim and sends it again on a hit.
 *
 * @param orderId the business key of the order
 * @param amountMinor the amount credited, in minor units (cents)
 * @param currency the ISO 4217 currency code
 */
public record LedgerCredited(String orderId, long amountMinor, String currency) {
}
