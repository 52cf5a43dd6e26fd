CREATE TABLE ledger_entry (
    id       BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id VARCHAR(64)   NOT NULL,
    amount   DECIMAL(12,2) NOT NULL
);
