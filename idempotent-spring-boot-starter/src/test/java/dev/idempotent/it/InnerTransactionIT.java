package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractInnerTransactionIT}, on MariaDB and PostgreSQL: one nested class per database. */
class InnerTransactionIT {

	/** The inner-transaction WARN with the ledger and the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractInnerTransactionIT {

	}

	/** The inner-transaction WARN with the ledger and the idempotency table in PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractInnerTransactionIT {

	}

}
