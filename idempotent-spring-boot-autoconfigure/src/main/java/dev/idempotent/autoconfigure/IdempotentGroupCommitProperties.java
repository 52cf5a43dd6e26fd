package dev.idempotent.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Group commit of single-record {@code @IdempotentListener} listeners ({@code idempotent.group-commit.*}): the records
 * of a poll are claimed in one round trip and committed in one transaction (docs/semantics.md, "Group commit").
 * Listeners choose with {@code @IdempotentListener(groupCommit = ...)}; these properties give the default and the
 * group bounds.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent.group-commit")
public class IdempotentGroupCommitProperties {

	/** Default of {@link #isEnabled()}. */
	public static final boolean DEFAULT_ENABLED = false;

	/** Default of {@link #getMaxRecords()}. */
	public static final int DEFAULT_MAX_RECORDS = 500;

	/** Default of {@link #getMaxWait()}. */
	public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(1);

	/**
	 * Whether single-record listeners with {@code groupCommit = DEFAULT} use group commit; a listener group commit
	 * cannot serve then runs record by record (logged at INFO).
	 */
	private boolean enabled = DEFAULT_ENABLED;

	/** The most records one group (one transaction) holds; a poll with more is committed in several groups. */
	private int maxRecords = DEFAULT_MAX_RECORDS;

	/**
	 * How long a group should take at most from its claims to its commit, i.e. how long a record waits for its commit
	 * beyond its own processing: after a slower group the next group of the listener is half as large (down to one
	 * record), after a quicker one twice as large again (up to max-records).
	 */
	private Duration maxWait = DEFAULT_MAX_WAIT;

	/**
	 * Return whether listeners use group commit unless they say otherwise.
	 * @return {@code false} unless configured
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Set whether listeners use group commit unless they say otherwise.
	 * @param enabled the default
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Return the most records of one group.
	 * @return 1 or more; {@value #DEFAULT_MAX_RECORDS} unless configured
	 */
	public int getMaxRecords() {
		return this.maxRecords;
	}

	/**
	 * Set the most records of one group.
	 * @param maxRecords 1 or more (checked at startup)
	 */
	public void setMaxRecords(int maxRecords) {
		this.maxRecords = maxRecords;
	}

	/**
	 * Return how long a group should take at most.
	 * @return positive; 1 second unless configured
	 */
	public Duration getMaxWait() {
		return this.maxWait;
	}

	/**
	 * Set how long a group should take at most.
	 * @param maxWait positive (checked at startup), never {@code null}
	 */
	public void setMaxWait(Duration maxWait) {
		this.maxWait = maxWait;
	}

}
