package dev.idempotent.benchmarks;

import java.util.HashMap;
import java.util.Map;

/** The command-line options of the benchmark tools: {@code --name=value}, or {@code --name} alone for "true". */
public final class Options {

	private Options() {
	}

	/**
	 * Parse the arguments.
	 * @param args the command line
	 * @return the value of each option by name
	 */
	public static Map<String, String> parse(String... args) {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			String[] pair = arg.replaceFirst("^--", "").split("=", 2);
			options.put(pair[0], (pair.length > 1) ? pair[1] : "true");
		}
		return options;
	}

}
