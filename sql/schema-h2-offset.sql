-- Consumed offsets for H2 2.x (also in MODE=MySQL), used when idempotent.offsets.enabled=true.
-- Each consumer group's next offset per topic-partition, written in the same transaction as the claims of the records
-- before it: a database that lost those claims lost their offsets too, and the consumer reads them again. On partition
-- assignment the consumer seeks to the stored offset. One row per group and partition; nothing to purge.
CREATE TABLE IF NOT EXISTS idempotent_claim_offset (
    consumer_group   VARCHAR(255)  NOT NULL,
    topic            VARCHAR(249)  NOT NULL,
    partition_id     INT           NOT NULL,
    next_offset      BIGINT        NOT NULL,
    updated_at       TIMESTAMP(6)  NOT NULL,
    PRIMARY KEY (consumer_group, topic, partition_id)
);
