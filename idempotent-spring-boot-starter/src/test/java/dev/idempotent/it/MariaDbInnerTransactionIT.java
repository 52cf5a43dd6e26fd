package dev.idempotent.it;

/** The inner-transaction WARN with the ledger and the idempotency table in MariaDB. */
class MariaDbInnerTransactionIT extends AbstractInnerTransactionIT {

}
