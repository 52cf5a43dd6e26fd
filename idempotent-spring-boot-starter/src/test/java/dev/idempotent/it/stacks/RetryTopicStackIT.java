package dev.idempotent.it.stacks;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractRetryTopicStackIT}, on MariaDB: one nested class per database. */
class RetryTopicStackIT {

	/** The @RetryableTopic stack on MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractRetryTopicStackIT {

	}

}
