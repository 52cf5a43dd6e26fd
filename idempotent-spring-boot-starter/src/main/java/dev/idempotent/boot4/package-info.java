/**
 * What differs on Spring Boot 4: the {@code idempotency} health contributor on Boot 4's health API, and the customizer
 * of Boot 4's producer factory that installs the idempotency key header. Everything else is the shared
 * auto-configuration of {@code idempotent-spring-boot-autoconfigure}.
 */
@NullMarked
package dev.idempotent.boot4;

import org.jspecify.annotations.NullMarked;
