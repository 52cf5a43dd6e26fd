package dev.idempotent.it.stacks;

/** The MyBatis stack on MariaDB. */
class MariaDbMyBatisStackIT extends AbstractMyBatisStackIT {

}
