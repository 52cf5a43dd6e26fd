package dev.idempotent.retention;

/**
 * What retention does with a row older than the retention period.
 *
 * @since 0.1.0
 */
public enum RetentionMode {

	/** Move the row to the archive table (same columns, primary key = the row's id), then delete it. */
	ARCHIVE("archived"),

	/** Delete the row. */
	DELETE("deleted");

	private final String action;

	RetentionMode(String action) {
		this.action = action;
	}

	/**
	 * Return the past-tense action, as used in metrics and logs.
	 * @return {@code "archived"} or {@code "deleted"}
	 */
	public String action() {
		return this.action;
	}

}
