-- Consumed offsets for PostgreSQL 13+, used when idempotent.offsets.enabled=true.
-- Each consumer group's next offset per topic-partition, written in the same transaction as the claims of the records
-- before it: a database that lost those claims (a failover to a replica that lacked them) lost their offsets too, and
-- the consumer reads them again. On partition assignment the consumer seeks to the stored offset. Names compare byte for
-- byte (COLLATE "C"), as Kafka compares them. One row per group and partition; nothing to purge.
CREATE TABLE IF NOT EXISTS idempotent_claim_offset (
    consumer_group   VARCHAR(255)  COLLATE "C" NOT NULL,
    topic            VARCHAR(249)  COLLATE "C" NOT NULL,
    partition_id     INTEGER       NOT NULL,
    next_offset      BIGINT        NOT NULL,
    updated_at       TIMESTAMP(6)  NOT NULL,
    PRIMARY KEY (consumer_group, topic, partition_id)
);
