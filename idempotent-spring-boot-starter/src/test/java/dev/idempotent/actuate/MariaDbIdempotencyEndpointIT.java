package dev.idempotent.actuate;

/** The endpoint over HTTP on the MariaDB test database (the default of the tests' {@code application.yml}). */
class MariaDbIdempotencyEndpointIT extends AbstractIdempotencyEndpointIT {

	@Override
	protected String expectedDialect() {
		return "mariadb";
	}

}
