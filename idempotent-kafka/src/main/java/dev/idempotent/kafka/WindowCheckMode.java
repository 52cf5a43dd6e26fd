package dev.idempotent.kafka;

/**
 * What the startup check of the retention window does when a topic of an idempotent listener keeps records
 * longer than the idempotency table keeps keys.
 *
 * @since 0.1.0
 */
public enum WindowCheckMode {

	/** Log a WARN per topic, with the numbers and the fix. */
	WARN,

	/** Stop the application, naming every such topic. */
	FAIL,

	/** Do not check. */
	NONE

}
