package dev.idempotent.it;

/** The group commit tests with the ledger and the idempotency table in MariaDB. */
class MariaDbGroupCommitIT extends AbstractGroupCommitIT {

}
