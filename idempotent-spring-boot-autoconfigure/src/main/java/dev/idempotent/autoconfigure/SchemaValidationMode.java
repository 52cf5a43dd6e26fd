package dev.idempotent.autoconfigure;

/**
 * What to do when the startup check of the idempotency table finds a problem.
 *
 * @since 0.1.0
 */
public enum SchemaValidationMode {

	/** Stop the application with a message that says what is wrong and the DDL that fixes it. */
	FAIL,

	/** Log the same message at WARN and start anyway. */
	WARN,

	/** Do not check. */
	NONE

}
