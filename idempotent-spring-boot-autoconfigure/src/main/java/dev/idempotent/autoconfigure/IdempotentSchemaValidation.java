package dev.idempotent.autoconfigure;

import dev.idempotent.jdbc.SchemaValidator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;

/**
 * Runs the startup check of the idempotency table (see {@link SchemaValidator}) after every database
 * initializer, Flyway and Liquibase included, and before any listener container starts.
 *
 * @since 0.1.0
 */
public class IdempotentSchemaValidation implements InitializingBean {

	private static final Logger logger = LoggerFactory.getLogger(IdempotentSchemaValidation.class);

	private final SchemaValidator validator;

	private final SchemaValidationMode mode;

	/**
	 * Create the check.
	 * @param validator the validator of the configured table
	 * @param mode what to do with a problem
	 */
	public IdempotentSchemaValidation(SchemaValidator validator, SchemaValidationMode mode) {
		this.validator = validator;
		this.mode = mode;
	}

	/** The validator of the startup check, for the health contributor: the same tables, columns and options. */
	SchemaValidator validator() {
		return this.validator;
	}

	/**
	 * Check the table.
	 * @throws SchemaValidator.InvalidSchemaException in mode {@link SchemaValidationMode#FAIL} when a problem is
	 * found
	 */
	@Override
	public void afterPropertiesSet() {
		if (this.mode == SchemaValidationMode.FAIL) {
			this.validator.validate();
		}
		else if (this.mode == SchemaValidationMode.WARN) {
			try {
				this.validator.validate();
			}
			catch (SchemaValidator.InvalidSchemaException ex) {
				logger.warn(ex.getMessage());
			}
		}
	}

}
