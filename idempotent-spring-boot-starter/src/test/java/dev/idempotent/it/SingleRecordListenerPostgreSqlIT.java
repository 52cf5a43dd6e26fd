package dev.idempotent.it;

/** The single-record end-to-end tests with the ledger and the idempotency table in PostgreSQL. */
@PostgreSqlDataSource
class SingleRecordListenerPostgreSqlIT extends SingleRecordListenerIT {

}
