package dev.idempotent.it.stacks;

/** The JdbcClient stack on MariaDB. */
class MariaDbJdbcClientStackIT extends AbstractJdbcClientStackIT {

}
