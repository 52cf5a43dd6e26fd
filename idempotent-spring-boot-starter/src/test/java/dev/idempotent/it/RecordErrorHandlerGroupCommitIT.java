package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractRecordErrorHandlerGroupCommitIT}, on MariaDB and PostgreSQL: one nested class per database. */
class RecordErrorHandlerGroupCommitIT {

	/** Group commit with a record-only application error handler, the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractRecordErrorHandlerGroupCommitIT {

		@Override
		ItDatabase database() {
			return ItDatabase.MARIADB;
		}

	}

	/** Group commit with a record-only application error handler, the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractRecordErrorHandlerGroupCommitIT {

		@Override
		ItDatabase database() {
			return ItDatabase.POSTGRESQL;
		}

	}

}
