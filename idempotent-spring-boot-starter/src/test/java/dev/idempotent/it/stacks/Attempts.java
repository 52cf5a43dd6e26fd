package dev.idempotent.it.stacks;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the listener's calls per key and fails on purpose as the record's payload asks: {@code ok},
 * {@code fail-once}, {@code fail-twice} or {@code fail-always}, after the business write.
 */
public class Attempts {

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	/** Count a call of {@code key} and throw if its mode asks for a failure on this call. */
	public void after(String key, String mode) {
		int call = this.calls.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		boolean fail = switch (mode) {
			case "ok" -> false;
			case "fail-once" -> call == 1;
			case "fail-twice" -> call <= 2;
			case "fail-always" -> true;
			default -> throw new IllegalArgumentException("Unknown mode " + mode);
		};
		if (fail) {
			throw new IllegalStateException("Failing call " + call + " of " + key + " on purpose (" + mode + ")");
		}
	}

	/** How often the listener was called for {@code key}. */
	public int of(String key) {
		AtomicInteger count = this.calls.get(key);
		return (count != null) ? count.get() : 0;
	}

}
