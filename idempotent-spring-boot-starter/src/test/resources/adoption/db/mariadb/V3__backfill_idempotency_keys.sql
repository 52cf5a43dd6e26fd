INSERT IGNORE INTO idempotent_claim (scope, idempotency_key, status, attempts, created_at, updated_at)
SELECT 'ledger', CONCAT('pay:', order_id), 1, 1, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)
FROM ledger_entry;
