package dev.idempotent.it;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/** The scenarios of {@link AbstractRetryTopicScopesIT}, on MariaDB: one nested class per database. */
class RetryTopicScopesIT {

	/** A {@code @RetryableTopic} listener's scope, with the idempotency table in MariaDB. */
	@Nested
	@Tag("mariadb")
	class MariaDb extends AbstractRetryTopicScopesIT {

		@Override
		ItDatabase database() {
			return ItDatabase.MARIADB;
		}

	}

}
