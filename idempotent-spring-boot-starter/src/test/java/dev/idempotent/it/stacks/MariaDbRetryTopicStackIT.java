package dev.idempotent.it.stacks;

/** The @RetryableTopic stack on MariaDB. */
class MariaDbRetryTopicStackIT extends AbstractRetryTopicStackIT {

}
