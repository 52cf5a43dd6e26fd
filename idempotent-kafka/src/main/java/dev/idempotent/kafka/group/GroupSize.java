package dev.idempotent.kafka.group;

import java.time.Duration;

/**
 * How many records the next group of a listener takes: at most {@code maxRecords}; halved after a group that took
 * longer than {@code maxWait} to commit (a record then waited too long for its commit), doubled back after a quicker
 * one. Shared by the consumer threads of a container; thread-safe (a race only skews one group's size).
 */
final class GroupSize {

	private final int maxRecords;

	private final long maxWaitNanos;

	private volatile int next;

	/**
	 * Create the sizing of one listener.
	 * @param maxRecords the most records of a group, 1 or more
	 * @param maxWait the longest a group should take from its claims to its commit, positive
	 * @throws IllegalArgumentException if a value is out of range
	 */
	GroupSize(int maxRecords, Duration maxWait) {
		if (maxRecords < 1 || maxWait.isNegative() || maxWait.isZero()) {
			throw new IllegalArgumentException("idempotent.group-commit: max-records must be 1 or more and target-duration"
					+ " positive, not " + maxRecords + " and " + maxWait);
		}
		this.maxRecords = maxRecords;
		this.maxWaitNanos = maxWait.toNanos();
		this.next = maxRecords;
	}

	/**
	 * The size of the next group.
	 * @return 1 to {@code maxRecords}
	 */
	int next() {
		return this.next;
	}

	/**
	 * Record how long a group took.
	 * @param records how many records it had
	 * @param nanos how long it took, from its claims to its commit
	 */
	void took(int records, long nanos) {
		int current = this.next;
		if (nanos > this.maxWaitNanos) {
			this.next = Math.max(1, Math.min(current, records) / 2);
		}
		else if (records >= current && current < this.maxRecords) {
			this.next = (int) Math.min(this.maxRecords, current * 2L);
		}
	}

}
