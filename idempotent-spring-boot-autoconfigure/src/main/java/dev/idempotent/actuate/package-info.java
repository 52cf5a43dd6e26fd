/**
 * Spring Boot Actuator support: the {@code idempotency} health contributor and endpoint.
 */
@NullMarked
package dev.idempotent.actuate;

import org.jspecify.annotations.NullMarked;
