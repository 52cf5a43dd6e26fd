package dev.idempotent.it;

/** The batch-listener shapes with the ledger and the idempotency table in MariaDB. */
class MariaDbBatchShapesIT extends AbstractBatchShapesIT {

}
