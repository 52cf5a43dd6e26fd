package dev.idempotent.claim;

import java.util.Objects;

import dev.idempotent.key.KeyMasker;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one WARN line per payload conflict to its own logger, {@value #LOGGER_NAME}: a hit whose payload
 * fingerprint differs from the one stored with the first claim of its key (the same key for different content: a
 * producer bug or a key collision). The delivery is still skipped as a hit, but never without this trace. Keys are
 * rendered by a {@link KeyMasker}; fingerprints are shown by their first 12 hex digits. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ConflictLog {

	/** The name of the logger that receives one WARN line per conflict. */
	public static final String LOGGER_NAME = "dev.idempotent.conflicts";

	/** Masks keys: what the executors use unless told otherwise. */
	public static final ConflictLog MASKED = new ConflictLog(KeyMasker.MASKED);

	private static final Logger logger = LoggerFactory.getLogger(LOGGER_NAME);

	private static final int SHOWN_DIGITS = 12;

	private final KeyMasker masker;

	/**
	 * Create a conflict log.
	 * @param masker renders the keys, never {@code null}
	 */
	public ConflictLog(KeyMasker masker) {
		this.masker = masker;
	}

	/**
	 * Log a conflict at WARN.
	 * @param request the request that hit, with its fingerprint, never {@code null}
	 * @param hit the hit, with the stored fingerprint, never {@code null}
	 */
	public void log(ClaimRequest request, ClaimResult.Hit hit) {
		logger.warn("Idempotent hit with a different payload: scope={} key={} source={} payload={}... first_payload={}..."
				+ " first_processed_at={}; skipped as a hit. The same key was sent with different content (a producer"
				+ " bug or a key collision); see the runbook section 'Payload conflict'", request.scope(),
				this.masker.mask(request.key()), (request.source() != null) ? request.source() : "-",
				prefix(request.fingerprint()), prefix(hit.fingerprint()),
				(hit.firstProcessedAt() != null) ? hit.firstProcessedAt() : "unknown");
	}

	private static String prefix(@Nullable String fingerprint) {
		String value = Objects.requireNonNullElse(fingerprint, "");
		return value.substring(0, Math.min(SHOWN_DIGITS, value.length()));
	}

}
