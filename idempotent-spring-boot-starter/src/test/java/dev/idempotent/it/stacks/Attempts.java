package dev.idempotent.it.stacks;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the listener's calls per key ({@link #call}, first thing in the listener) and fails on purpose as the
 * record asks ({@link #failIfAsked}, after the business write): {@code ok}, {@code fail-once},
 * {@code fail-twice} or {@code fail-always}.
 */
public class Attempts {

	private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

	/** Count a call of {@code key}; returns its number, from 1. */
	public int call(String key) {
		return this.calls.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
	}

	/** Throw if {@code mode} asks for a failure on call number {@code call}. */
	public void failIfAsked(String key, String mode, int call) {
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
