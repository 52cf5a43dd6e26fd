/**
 * Spring Boot auto-configuration and {@code idempotent.*} properties.
 */
@NullMarked
package dev.idempotent.autoconfigure;

import org.jspecify.annotations.NullMarked;
