package dev.idempotent.key;

/**
 * Why an idempotency key was rejected. The name of each constant is what the dead-letter header carries.
 *
 * @since 0.1.0
 */
public enum InvalidKeyReason {

	/** The key source produced {@code null}, e.g. the key header is absent. */
	NULL,

	/** The key is empty or consists of white space only. */
	BLANK,

	/** The key has more characters (Unicode code points) than the configured maximum. */
	TOO_LONG,

	/** The key bytes (from a header) are not valid UTF-8, or the key holds a NUL or an unpaired surrogate. */
	MALFORMED,

	/** The key source produced a value of a type that has no stable text form. */
	UNSUPPORTED_TYPE,

	/** The key expression could not be evaluated against the record. */
	EXPRESSION_FAILED,

	/**
	 * The key cannot be claimed in its scope: the listener method takes its consumer group id as scope, and that
	 * scope already belongs to another listener method, so their keys would merge. A misconfiguration, found at a
	 * delivery because the group id could not be resolved at startup: give each method an explicit scope.
	 */
	SCOPE_CONFLICT

}
