package dev.idempotent.it.stacks;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractPoisonRecordStackIT}, on MariaDB: one nested class per database. */
class PoisonRecordStackIT {

	/** The ErrorHandlingDeserializer poison-record stack on MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractPoisonRecordStackIT {

	}

}
