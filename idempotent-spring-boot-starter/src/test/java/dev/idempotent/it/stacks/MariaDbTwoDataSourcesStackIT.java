package dev.idempotent.it.stacks;

/** The two-DataSources stack on MariaDB. */
class MariaDbTwoDataSourcesStackIT extends AbstractTwoDataSourcesStackIT {

}
