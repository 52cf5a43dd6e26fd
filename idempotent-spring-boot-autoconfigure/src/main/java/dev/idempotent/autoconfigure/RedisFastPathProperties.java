package dev.idempotent.autoconfigure;

import java.time.Duration;

import dev.idempotent.fastpath.FastPathClaims;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The Redis fast path, under {@code idempotent.fast-path.redis.*}: off by default. Redis is reached through the
 * application's Spring Data Redis connection factory ({@code spring.data.redis.*}, Lettuce).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotent.fast-path.redis")
public class RedisFastPathProperties {

	/**
	 * Whether keys committed in the database are remembered in Redis, so that a replay of them is a hit without a
	 * database transaction. Needs spring-boot-starter-data-redis (Lettuce).
	 */
	private boolean enabled;

	/**
	 * How long Redis keeps a key, counted from when it was processed. Must not be longer than
	 * 'idempotent.retention.period' when retention is on (refused at startup otherwise). Defaults to the retention
	 * period when retention is on, else to 1 day.
	 */
	private @Nullable Duration ttl;

	/**
	 * The longest a lookup or a write may take; after it the record is claimed in the database.
	 */
	private Duration timeout = Duration.ofMillis(100);

	/**
	 * After an error or a timeout, how long Redis is not asked: records go straight to the database instead of each
	 * waiting for a timeout, then one lookup tries Redis again.
	 */
	private Duration pauseAfterError = FastPathClaims.DEFAULT_PAUSE_AFTER_ERROR;

	/**
	 * Prepended to every Redis key. Defaults to 'idempotent:', the idempotency table's name, ':', a random name of
	 * the database drawn once and kept in it (a row of scope 'idempotent.fast-path' in the idempotency table) and
	 * ':', so that applications on separate databases never share keys, whatever their tables and group ids.
	 */
	private @Nullable String keyPrefix;

	/**
	 * Whether single-record listeners ask Redis once per poll for the keys of all its records, instead of once per
	 * record. Adds an interceptor to 'interceptor.classes' of the consumer factories.
	 */
	private boolean prefetch = true;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable Duration getTtl() {
		return this.ttl;
	}

	public void setTtl(@Nullable Duration ttl) {
		this.ttl = ttl;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public Duration getPauseAfterError() {
		return this.pauseAfterError;
	}

	public void setPauseAfterError(Duration pauseAfterError) {
		this.pauseAfterError = pauseAfterError;
	}

	public @Nullable String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(@Nullable String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public boolean isPrefetch() {
		return this.prefetch;
	}

	public void setPrefetch(boolean prefetch) {
		this.prefetch = prefetch;
	}

}
