package dev.idempotent.it;

/** The acknowledgment matrix with the ledger and the idempotency table in MariaDB. */
class MariaDbAcknowledgmentMatrixIT extends AbstractAcknowledgmentMatrixIT {

}
