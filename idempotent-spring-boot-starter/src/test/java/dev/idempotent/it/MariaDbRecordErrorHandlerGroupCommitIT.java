package dev.idempotent.it;

/** Group commit with a record-only application error handler, the ledger and the idempotency table in MariaDB. */
class MariaDbRecordErrorHandlerGroupCommitIT extends AbstractRecordErrorHandlerGroupCommitIT {

	@Override
	ItDatabase database() {
		return ItDatabase.MARIADB;
	}

}
