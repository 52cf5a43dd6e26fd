package dev.idempotent.it.stacks;

import dev.idempotent.it.PostgreSqlDataSource;
import org.junit.jupiter.api.Nested;

/** The scenarios of {@link AbstractRecordFilterStackIT}, on PostgreSQL: one nested class per database. */
class RecordFilterStackIT {

	/** The RecordFilterStrategy stack on PostgreSQL. */
	@Nested
	@PostgreSqlDataSource
	class PostgreSql extends AbstractRecordFilterStackIT {

	}

}
