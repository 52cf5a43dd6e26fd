package dev.idempotent.autoconfigure;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SchemaInitializer;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Creates the idempotency table at startup when {@code idempotent.jdbc.initialize-schema} asks for it:
 * {@code always}, or {@code embedded} (the default) when the database is an embedded one.
 *
 * @since 0.1.0
 */
public class IdempotentSchemaInitialization implements InitializingBean {

	private final DataSource dataSource;

	private final SchemaInitializer initializer;

	private final DatabaseInitializationMode mode;

	/**
	 * Create the initialization.
	 * @param dataSource the business database
	 * @param initializer runs the DDL
	 * @param mode when to run it
	 */
	public IdempotentSchemaInitialization(DataSource dataSource, SchemaInitializer initializer,
			DatabaseInitializationMode mode) {
		this.dataSource = dataSource;
		this.initializer = initializer;
		this.mode = mode;
	}

	/**
	 * Create the table if the mode asks for it.
	 * @throws org.springframework.jdbc.datasource.init.ScriptException if the DDL fails
	 */
	@Override
	public void afterPropertiesSet() {
		if (this.mode == DatabaseInitializationMode.ALWAYS || (this.mode == DatabaseInitializationMode.EMBEDDED
				&& EmbeddedDatabaseConnection.isEmbedded(this.dataSource))) {
			this.initializer.initialize();
		}
	}

}
