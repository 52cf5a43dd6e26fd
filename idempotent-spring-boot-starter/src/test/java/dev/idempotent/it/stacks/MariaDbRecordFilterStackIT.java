package dev.idempotent.it.stacks;

/** The RecordFilterStrategy stack on MariaDB. */
class MariaDbRecordFilterStackIT extends AbstractRecordFilterStackIT {

}
