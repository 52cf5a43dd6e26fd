package dev.idempotent.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import dev.idempotent.jdbc.SchemaInitializer;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Creates the idempotency table (and, when retention archives, the archive table) at startup when
 * {@code idempotent.jdbc.initialize-schema} asks for it: {@code always}, or {@code embedded} (the default) when
 * the database is an embedded one.
 *
 * @since 0.1.0
 */
public class IdempotentSchemaInitialization implements InitializingBean {

	private final DataSource dataSource;

	private final List<SchemaInitializer> initializers;

	private final DatabaseInitializationMode mode;

	/**
	 * Create the initialization.
	 * @param dataSource the business database
	 * @param initializer runs the DDL
	 * @param mode when to run it
	 */
	public IdempotentSchemaInitialization(DataSource dataSource, SchemaInitializer initializer,
			DatabaseInitializationMode mode) {
		this(dataSource, List.of(initializer), mode);
	}

	/**
	 * Create the initialization of several tables.
	 * @param dataSource the business database
	 * @param initializers run the DDL, in order
	 * @param mode when to run it
	 */
	public IdempotentSchemaInitialization(DataSource dataSource, List<SchemaInitializer> initializers,
			DatabaseInitializationMode mode) {
		this.dataSource = dataSource;
		this.initializers = List.copyOf(initializers);
		this.mode = mode;
	}

	/**
	 * Create the tables if the mode asks for it.
	 * @throws org.springframework.jdbc.datasource.init.ScriptException if the DDL fails
	 */
	@Override
	public void afterPropertiesSet() {
		if (this.mode == DatabaseInitializationMode.ALWAYS || (this.mode == DatabaseInitializationMode.EMBEDDED
				&& EmbeddedDatabaseConnection.isEmbedded(this.dataSource))) {
			this.initializers.forEach(SchemaInitializer::initialize);
		}
	}

}
