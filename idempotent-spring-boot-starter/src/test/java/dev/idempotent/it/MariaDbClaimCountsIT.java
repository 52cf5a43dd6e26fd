package dev.idempotent.it;

/** Claim counts per record with the ledger and the idempotency table in MariaDB. */
class MariaDbClaimCountsIT extends AbstractClaimCountsIT {

}
