package dev.idempotent.claim;

/**
 * The status of an idempotency row, stored as a small integer code (docs/semantics.md, "Statuses").
 *
 * @since 0.1.0
 */
public enum ClaimStatus {

	/** Claimed and being processed: code 0. Only committed on its own in LEASED mode. */
	PROCESSING(0),

	/** Processed; its business effect is committed: code 1. */
	SUCCEEDED(1),

	/** Dead-lettered after its retries were exhausted; may be claimed again: code 2. */
	FAILED(2);

	private final int code;

	ClaimStatus(int code) {
		this.code = code;
	}

	/**
	 * Return the code stored in the status column.
	 * @return 0, 1 or 2
	 */
	public int code() {
		return this.code;
	}

	/**
	 * Return the status for a stored code.
	 * @param code the value of the status column
	 * @return the status
	 * @throws IllegalArgumentException if the code is not 0, 1 or 2
	 */
	public static ClaimStatus fromCode(int code) {
		for (ClaimStatus status : values()) {
			if (status.code == code) {
				return status;
			}
		}
		throw new IllegalArgumentException("Unknown claim status code " + code + "; expected 0, 1 or 2");
	}

}
