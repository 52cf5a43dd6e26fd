-- Time-partitioned archive of the idempotency table for PostgreSQL 13+, an alternative to
-- schema-postgresql-archive.sql for idempotent.retention.mode=archive at high volume: the archive only grows, and
-- an operator removes old archived rows by dropping a whole partition (DETACH, then DROP TABLE: no dead tuples, no
-- VACUUM) instead of a DELETE that reads and logs every row. See docs/operations.md, "Partitioned archive table".
-- Same columns as idempotent_claim. Partitioned by updated_at, the time retention compares, so a partition fills
-- once, in order, and is never written again after its month fell out of the retention window. A partitioned table's
-- primary key must contain the partition key, hence PRIMARY KEY (id, updated_at): an archived row never changes, so a
-- row still cannot be archived twice. Not used by idempotent.jdbc.initialize-schema: copy it into your migrations,
-- with your months, and create the next month's partition before it begins (the DEFAULT partition catches rows of a
-- month without one, but a partition cannot be created for a range the DEFAULT partition already holds rows of).
CREATE TABLE IF NOT EXISTS idempotent_claim_archive (
    id               BIGINT        NOT NULL,
    scope            VARCHAR(128)  COLLATE "C" NOT NULL,
    idempotency_key  VARCHAR(128)  COLLATE "C" NOT NULL,
    status           SMALLINT      NOT NULL,
    attempts         INTEGER       NOT NULL,
    source_topic     VARCHAR(249)  NULL,
    source_partition INTEGER       NULL,
    source_offset    BIGINT        NULL,
    created_at       TIMESTAMP(6)  NOT NULL,
    updated_at       TIMESTAMP(6)  NOT NULL,
    lease_until      TIMESTAMP(6)  NULL,
    last_error       VARCHAR(1000) NULL,
    payload_fingerprint VARCHAR(64) NULL,
    PRIMARY KEY (id, updated_at)
) PARTITION BY RANGE (updated_at);
CREATE INDEX IF NOT EXISTS ix_idempotent_claim_archive_scope_key ON idempotent_claim_archive (scope, idempotency_key);
CREATE TABLE IF NOT EXISTS idempotent_claim_archive_2026_01 PARTITION OF idempotent_claim_archive
    FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');
CREATE TABLE IF NOT EXISTS idempotent_claim_archive_2026_02 PARTITION OF idempotent_claim_archive
    FOR VALUES FROM ('2026-02-01') TO ('2026-03-01');
CREATE TABLE IF NOT EXISTS idempotent_claim_archive_2026_03 PARTITION OF idempotent_claim_archive
    FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
CREATE TABLE IF NOT EXISTS idempotent_claim_archive_default PARTITION OF idempotent_claim_archive DEFAULT;
