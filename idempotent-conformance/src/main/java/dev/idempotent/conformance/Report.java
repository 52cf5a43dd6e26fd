package dev.idempotent.conformance;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The printed report: what was checked where, each check with its status and evidence, and a verdict line.
 *
 * @param header lines describing the database, the driver and the kit's tables
 * @param results the checks, in order
 * @param footer lines printed after the checks (cleanup)
 */
record Report(List<String> header, List<CheckResult> results, List<String> footer) {

	/** The start of the verdict line when every check that ran passed. */
	static final String CONFORMANT = "VERDICT: CONFORMANT";

	/** The start of the verdict line when a check failed. */
	static final String NOT_CONFORMANT = "VERDICT: NOT CONFORMANT";

	private static final int MAX_EVIDENCE = 600;

	long count(CheckResult.Status status) {
		return this.results.stream().filter((result) -> result.status() == status).count();
	}

	boolean conformant() {
		return count(CheckResult.Status.FAIL) == 0 && count(CheckResult.Status.PASS) > 0;
	}

	String verdict() {
		long passed = count(CheckResult.Status.PASS);
		long failed = count(CheckResult.Status.FAIL);
		long skipped = count(CheckResult.Status.SKIPPED);
		String counts = passed + " passed, " + failed + " failed, " + skipped + " skipped";
		if (conformant()) {
			return CONFORMANT + " (" + counts + "): the idempotent consumer's guarantee holds on this database as far as"
					+ " these checks reach" + ((skipped > 0) ? "; see the skipped checks" : "");
		}
		return NOT_CONFORMANT + " (" + counts + "): do not rely on the idempotent consumer here until the failed checks"
				+ " are understood";
	}

	void print(PrintStream out) {
		out.println("idempotent-conformance report");
		this.header.forEach((line) -> out.println("  " + line));
		out.println();
		String group = null;
		for (CheckResult result : this.results) {
			if (!result.group().equals(group)) {
				group = result.group();
				out.println("== " + group);
			}
			out.printf(Locale.ROOT, "%-7s %s (%d ms)%n", "[" + result.status() + "]", result.name(), result.millis());
			if (!result.evidence().isEmpty()) {
				out.println("        evidence: " + result.evidence());
			}
		}
		out.println();
		this.footer.forEach((line) -> out.println("  " + line));
		out.println(verdict());
		out.flush();
	}

	/** A failure in a few lines: its type, message and first cause. */
	static String describe(Throwable failure) {
		StringBuilder text = new StringBuilder();
		if (!(failure instanceof AssertionError)) {
			text.append(failure.getClass().getSimpleName()).append(": ");
		}
		text.append(String.valueOf(failure.getMessage()).strip().replaceAll("\\s*\\R\\s*", " "));
		Throwable cause = failure.getCause();
		if (cause != null && cause != failure) {
			text.append(" (cause: ").append(cause.getClass().getSimpleName()).append(": ")
				.append(String.valueOf(cause.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ")).append(')');
		}
		return (text.length() > MAX_EVIDENCE) ? text.substring(0, MAX_EVIDENCE) + "..." : text.toString();
	}

}
