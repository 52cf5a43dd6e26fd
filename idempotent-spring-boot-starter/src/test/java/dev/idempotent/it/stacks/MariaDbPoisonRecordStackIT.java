package dev.idempotent.it.stacks;

/** The ErrorHandlingDeserializer poison-record stack on MariaDB. */
class MariaDbPoisonRecordStackIT extends AbstractPoisonRecordStackIT {

}
