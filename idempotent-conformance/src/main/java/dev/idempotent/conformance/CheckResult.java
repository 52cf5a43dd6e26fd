package dev.idempotent.conformance;

/**
 * The outcome of one check.
 *
 * @param group what the check belongs to, e.g. "claim store"
 * @param name the check's name (its test method, with its parameters)
 * @param status passed, failed or skipped
 * @param evidence what was observed: the codes or outcomes a check published, or the failure; may be empty
 * @param millis how long it took, in milliseconds
 */
public record CheckResult(String group, String name, Status status, String evidence, long millis) {

	/** How a check ended. */
	public enum Status {

		/** Every assertion held. */
		PASS,

		/** An assertion failed or the check threw. */
		FAIL,

		/** The check could not run here; the evidence says why. */
		SKIPPED

	}

}
