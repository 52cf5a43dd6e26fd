package dev.idempotent.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * Creates the idempotency table from the dialect's shipped DDL ({@code sql/schema-<dialect>.sql}, also inside
 * the jar), with the configured table name in place of {@code idempotent_claim}. The DDL uses
 * {@code CREATE TABLE IF NOT EXISTS}, so running it again is harmless. Schema creation is opt-in: Flyway or
 * Liquibase users copy the file into their migrations instead. {@link #archive} creates the archive table of
 * retention in ARCHIVE mode the same way, from {@code sql/schema-<dialect>-archive.sql}.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public final class SchemaInitializer {

	private final DataSource dataSource;

	private final TableName table;

	private final SqlDialect dialect;

	private final String location;

	private final String defaultName;

	/**
	 * Create an initializer of the idempotency table.
	 * @param dataSource the business database
	 * @param table the table to create
	 * @param dialect the database's dialect
	 */
	public SchemaInitializer(DataSource dataSource, TableName table, SqlDialect dialect) {
		this(dataSource, table, dialect, dialect.schemaLocation(), TableName.DEFAULT);
	}

	private SchemaInitializer(DataSource dataSource, TableName table, SqlDialect dialect, String location,
			String defaultName) {
		this.dataSource = dataSource;
		this.table = table;
		this.dialect = dialect;
		this.location = location;
		this.defaultName = defaultName;
	}

	/**
	 * Create an initializer of the archive table that retention in ARCHIVE mode moves old rows to.
	 * @param dataSource the business database
	 * @param archive the archive table to create
	 * @param dialect the database's dialect
	 * @return the initializer, never {@code null}
	 */
	public static SchemaInitializer archive(DataSource dataSource, TableName archive, SqlDialect dialect) {
		return new SchemaInitializer(dataSource, archive, dialect, dialect.archiveSchemaLocation(),
				TableName.DEFAULT_ARCHIVE);
	}

	/**
	 * Create an initializer of the table that holds the outputs of claims (records a listener sent under a claim),
	 * from {@code sql/schema-<dialect>-output.sql}.
	 * @param dataSource the business database
	 * @param outputs the output table to create
	 * @param dialect the database's dialect
	 * @return the initializer, never {@code null}
	 * @since 0.1.0
	 */
	public static SchemaInitializer outputs(DataSource dataSource, TableName outputs, SqlDialect dialect) {
		return new SchemaInitializer(dataSource, outputs, dialect, dialect.outputSchemaLocation(),
				TableName.DEFAULT_OUTPUT);
	}

	/**
	 * Create an initializer of the table that holds each consumer group's next offset per partition, stored in the
	 * claims' transactions, from {@code sql/schema-<dialect>-offset.sql}.
	 * @param dataSource the business database
	 * @param offsets the offset table to create
	 * @param dialect the database's dialect
	 * @return the initializer, never {@code null}
	 * @since 0.1.0
	 */
	public static SchemaInitializer offsets(DataSource dataSource, TableName offsets, SqlDialect dialect) {
		return new SchemaInitializer(dataSource, offsets, dialect, dialect.offsetSchemaLocation(),
				TableName.DEFAULT_OFFSET);
	}

	/**
	 * Return the DDL for the configured table.
	 * @return the SQL script, never {@code null}
	 * @throws IllegalStateException if the dialect's DDL file is missing from the classpath
	 */
	public String ddl() {
		ClassPathResource resource = new ClassPathResource(this.location, SchemaInitializer.class.getClassLoader());
		try (InputStream in = resource.getInputStream()) {
			String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return script.replace("uk_" + this.defaultName + "_", "uk_" + this.table.simpleName() + "_")
				.replace("ix_" + this.defaultName + "_", "ix_" + this.table.simpleName() + "_")
				.replace(this.defaultName, this.table.value());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Missing DDL " + this.location, ex);
		}
	}

	/**
	 * Create the table if it does not exist.
	 * @throws org.springframework.jdbc.datasource.init.ScriptException if a statement fails
	 * @throws IllegalStateException if no connection can be obtained
	 */
	public void initialize() {
		try (Connection connection = this.dataSource.getConnection()) {
			ScriptUtils.executeSqlScript(connection, new ByteArrayResource(ddl().getBytes(StandardCharsets.UTF_8)));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create table " + this.table, ex);
		}
	}

}
