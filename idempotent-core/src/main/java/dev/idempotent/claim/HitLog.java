package dev.idempotent.claim;

import dev.idempotent.key.KeyMasker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the one INFO line of an idempotent hit to its own logger, {@value #LOGGER_NAME}, so that hits can be
 * routed, sampled or silenced without touching other logs. A hit is expected behaviour: never an ERROR. Keys are
 * rendered by a {@link KeyMasker} (masked by default, since keys can be personal data). Thread-safe.
 *
 * @since 0.1.0
 */
public final class HitLog {

	/** The name of the logger that receives one INFO line per hit. */
	public static final String LOGGER_NAME = "dev.idempotent.hits";

	/** Masks keys: what the executors use unless told otherwise. */
	public static final HitLog MASKED = new HitLog(KeyMasker.MASKED);

	private static final Logger logger = LoggerFactory.getLogger(LOGGER_NAME);

	private final KeyMasker masker;

	/**
	 * Create a hit log.
	 * @param masker renders the keys, never {@code null}
	 */
	public HitLog(KeyMasker masker) {
		this.masker = java.util.Objects.requireNonNull(masker, "masker must not be null");
	}

	/**
	 * Return how this log renders keys, for other log lines about the same claims.
	 * @return the masker, never {@code null}
	 */
	public KeyMasker masker() {
		return this.masker;
	}

	/**
	 * Log a hit at INFO, with its {@link HitOrigin} ({@code origin=redelivery}: the same record read again;
	 * {@code origin=resend}: another record with the key); the line ends in {@code skipped}, or in shadow mode in
	 * {@code processed (shadow mode)}.
	 * @param request the request that hit, never {@code null}
	 * @param hit what the claim found, never {@code null}
	 * @param shadow whether the hit's work runs anyway (shadow mode)
	 */
	public void log(ClaimRequest request, ClaimResult.Hit hit, boolean shadow) {
		if (logger.isInfoEnabled()) {
			logger.info("Idempotent hit: scope={} key={} source={} origin={} status={} first_processed_at={}; {}",
					request.scope(), this.masker.mask(request.key()),
					(request.source() != null) ? request.source() : "-", HitOrigin.of(request, hit).tagValue(),
					(hit.status() != null) ? hit.status() : "unknown",
					(hit.firstProcessedAt() != null) ? hit.firstProcessedAt() : "unknown",
					shadow ? "processed (shadow mode)" : "skipped");
		}
	}

}
