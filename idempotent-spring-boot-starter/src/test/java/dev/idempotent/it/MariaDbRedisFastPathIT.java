package dev.idempotent.it;

/** The Redis fast path with the ledger and the idempotency table in MariaDB. */
class MariaDbRedisFastPathIT extends AbstractRedisFastPathIT {

}
