package dev.idempotent.retention;

/**
 * What happens to a record whose timestamp is older than the retention period when it is delivered: its key's
 * row may already have been removed, so a duplicate of it would not be recognised.
 *
 * @since 0.1.0
 */
public enum LateRecordPolicy {

	/** Log a WARN (key masked), count it, and claim and process it as usual. */
	PROCESS("process"),

	/** Count it and send it to the dead-letter topic at once, with the reason, without claiming it. */
	DEAD_LETTER("dead-letter");

	private final String tag;

	LateRecordPolicy(String tag) {
		this.tag = tag;
	}

	/**
	 * Return the name used in metrics and configuration.
	 * @return {@code "process"} or {@code "dead-letter"}
	 */
	public String tag() {
		return this.tag;
	}

}
