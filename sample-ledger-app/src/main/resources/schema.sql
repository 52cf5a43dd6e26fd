-- Business tables of the sample ledger (H2 in MySQL mode, MySQL 8, MariaDB): statements all three accept.
-- t_ledger.order_id is deliberately not unique: the idempotency table is what prevents double credits,
-- and the reconciliation audit (GROUP BY order_id HAVING COUNT(*) > 1) is what would find them.
CREATE TABLE IF NOT EXISTS t_ledger (
    id           BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id     VARCHAR(64)  NOT NULL,
    biz_type     VARCHAR(32)  NOT NULL,
    amount_minor BIGINT       NOT NULL,
    currency     CHAR(3)      NOT NULL,
    paid_at      DATETIME(3)  NOT NULL,
    created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    INDEX idx_t_ledger_order_id (order_id)
);
CREATE TABLE IF NOT EXISTS t_notification (
    id         BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id   VARCHAR(64) NOT NULL,
    kind       VARCHAR(32) NOT NULL,
    created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
);
