-- A business table, migrated by Flyway before the idempotency table is created by the starter.
CREATE TABLE flyway_business (id BIGINT NOT NULL PRIMARY KEY);
