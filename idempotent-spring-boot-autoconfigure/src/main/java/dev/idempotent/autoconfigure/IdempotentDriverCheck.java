package dev.idempotent.autoconfigure;

import dev.idempotent.jdbc.GaleraDriverCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;

/**
 * Logs one WARN at startup when the business database is reached in a way known to hide errors from the application:
 * a MariaDB Galera node through mariadb-java-client with bulk INSERTs on (see {@link GaleraDriverCheck}).
 *
 * @since 0.1.0
 */
public class IdempotentDriverCheck implements InitializingBean {

	private static final Logger logger = LoggerFactory.getLogger(IdempotentDriverCheck.class);

	private final GaleraDriverCheck galera;

	/**
	 * Create the check.
	 * @param galera the check of a Galera node's driver settings
	 */
	public IdempotentDriverCheck(GaleraDriverCheck galera) {
		this.galera = galera;
	}

	@Override
	public void afterPropertiesSet() {
		String problem = this.galera.problem();
		if (problem != null) {
			logger.warn(problem);
		}
	}

}
