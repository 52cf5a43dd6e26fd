package dev.idempotent.output;

import java.time.Duration;

/**
 * How outputs are captured.
 *
 * @param enabled whether listeners capture their outputs unless they opt out ({@code idempotent.outputs.enabled})
 * @param maxBytes the largest serialized key or value of one output, in bytes
 * @param maxCount the most outputs one claim may send
 * @param ackTimeout how long to wait for the broker's acknowledgments of a claim's outputs, after its commit
 * @param keyHeader the idempotency key header given to outputs that have none
 * @param replayBuffer the most bytes of stored outputs a replay reads at once (a claim's outputs larger than that are
 * read and sent a part at a time)
 * @since 0.1.0
 */
public record OutputSettings(boolean enabled, int maxBytes, int maxCount, Duration ackTimeout, String keyHeader,
		long replayBuffer) {

	/** The default {@link #replayBuffer}: 16 MiB. */
	public static final long DEFAULT_REPLAY_BUFFER = 16L * 1024 * 1024;

	/**
	 * Check the settings.
	 * @throws IllegalArgumentException if a limit or the timeout is not positive
	 */
	public OutputSettings {
		if (maxBytes <= 0 || maxCount <= 0 || ackTimeout.isNegative() || ackTimeout.isZero() || replayBuffer <= 0) {
			throw new IllegalArgumentException("idempotent.outputs.max-bytes, max-count, ack-timeout and replay-buffer"
					+ " must be positive");
		}
	}

	/**
	 * Create settings with the default {@link #replayBuffer}.
	 * @param enabled whether listeners capture their outputs unless they opt out
	 * @param maxBytes the largest serialized key or value of one output, in bytes
	 * @param maxCount the most outputs one claim may send
	 * @param ackTimeout how long to wait for the broker's acknowledgments of a claim's outputs, after its commit
	 * @param keyHeader the idempotency key header given to outputs that have none
	 */
	public OutputSettings(boolean enabled, int maxBytes, int maxCount, Duration ackTimeout, String keyHeader) {
		this(enabled, maxBytes, maxCount, ackTimeout, keyHeader, DEFAULT_REPLAY_BUFFER);
	}

	/**
	 * How many outputs of one claim a replay reads in one statement: as many as fit in the replay buffer when each is
	 * as large as its key and value may be.
	 * @return the count, 1 or more
	 */
	public int outputsPerRead() {
		return (int) Math.max(1, Math.min(Integer.MAX_VALUE, this.replayBuffer / (2L * this.maxBytes)));
	}

}
