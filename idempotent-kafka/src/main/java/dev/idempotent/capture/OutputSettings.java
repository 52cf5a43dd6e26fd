package dev.idempotent.capture;

import java.time.Duration;

/**
 * How outputs are captured.
 *
 * @param enabled whether listeners capture their outputs unless they opt out ({@code idempotent.outputs.enabled})
 * @param maxBytes the largest serialized key or value of one output, in bytes
 * @param maxCount the most outputs one claim may send
 * @param ackTimeout how long to wait for the broker's acknowledgments of a claim's outputs, after its commit
 * @param keyHeader the idempotency key header given to outputs that have none
 * @since 0.2.0
 */
public record OutputSettings(boolean enabled, int maxBytes, int maxCount, Duration ackTimeout, String keyHeader) {

	/**
	 * Check the settings.
	 * @throws IllegalArgumentException if a limit or the timeout is not positive
	 */
	public OutputSettings {
		if (maxBytes <= 0 || maxCount <= 0 || ackTimeout.isNegative() || ackTimeout.isZero()) {
			throw new IllegalArgumentException("idempotent.outputs.max-bytes, max-count and ack-timeout must be positive");
		}
	}

}
