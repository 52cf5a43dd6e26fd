package dev.idempotent.boot3;

import dev.idempotent.actuate.IdempotencyHealthCheck;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The {@code idempotency} health contributor on Spring Boot 3: the {@link IdempotencyHealthCheck} as a
 * {@link HealthIndicator}. Thread-safe.
 *
 * @since 0.1.0
 */
public class IdempotencyHealthIndicator implements HealthIndicator {

	private final IdempotencyHealthCheck check;

	/**
	 * Create the indicator.
	 * @param check the check of the idempotency table, never {@code null}
	 */
	public IdempotencyHealthIndicator(IdempotencyHealthCheck check) {
		this.check = check;
	}

	@Override
	public Health health() {
		IdempotencyHealthCheck.Result result = this.check.check();
		Health.Builder health = result.up() ? Health.up() : Health.down();
		if (result.error() != null) {
			health.withException(result.error());
		}
		return health.withDetails(result.details()).build();
	}

}
