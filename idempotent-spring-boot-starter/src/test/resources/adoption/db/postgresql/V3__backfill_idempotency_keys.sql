INSERT INTO idempotent_claim (scope, idempotency_key, status, attempts, created_at, updated_at)
SELECT 'ledger', 'pay:' || order_id, 1, 1, NOW() AT TIME ZONE 'UTC', NOW() AT TIME ZONE 'UTC'
FROM ledger_entry
ON CONFLICT (scope, idempotency_key) DO NOTHING;
