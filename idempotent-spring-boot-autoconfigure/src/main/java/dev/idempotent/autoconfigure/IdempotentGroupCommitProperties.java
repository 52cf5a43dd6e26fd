package dev.idempotent.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

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

	/** Default of {@link #getTargetDuration()}. */
	public static final Duration DEFAULT_TARGET_DURATION = Duration.ofSeconds(1);

	/**
	 * Whether single-record listeners with {@code groupCommit = DEFAULT} use group commit; a listener group commit
	 * cannot serve then runs record by record (logged at INFO).
	 */
	private boolean enabled = DEFAULT_ENABLED;

	/** The most records one group (one transaction) holds; a poll with more is committed in several groups. */
	private int maxRecords = DEFAULT_MAX_RECORDS;

	/**
	 * How long a group should take at most from its claims to its commit, i.e. how long a record waits for its commit
	 * beyond its own processing: the size of the groups adapts to it. After a slower group the next group of the
	 * listener is half as large (down to one record), after a quicker one twice as large again (up to max-records).
	 * Nothing waits for records to arrive: a group holds what one poll delivered.
	 */
	private Duration targetDuration = DEFAULT_TARGET_DURATION;

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
	public Duration getTargetDuration() {
		return this.targetDuration;
	}

	/**
	 * Set how long a group should take at most.
	 * @param targetDuration positive (checked at startup), never {@code null}
	 */
	public void setTargetDuration(Duration targetDuration) {
		this.targetDuration = targetDuration;
	}

	/**
	 * Deprecated: {@code idempotent.group-commit.target-duration}.
	 * @return the target duration of a group
	 * @deprecated use {@link #getTargetDuration()}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	@DeprecatedConfigurationProperty(replacement = "idempotent.group-commit.target-duration", reason = "Not a wait: the duration the size of the groups adapts to")
	public Duration getMaxWait() {
		return this.targetDuration;
	}

	/**
	 * Deprecated: {@code idempotent.group-commit.target-duration}.
	 * @param maxWait the target duration of a group
	 * @deprecated use {@link #setTargetDuration(Duration)}
	 */
	@Deprecated(since = "0.1.0", forRemoval = true)
	public void setMaxWait(Duration maxWait) {
		this.targetDuration = maxWait;
	}

}
