/**
 * The Redis fast path on Spring Data Redis with Lettuce, and its auto-configuration under
 * {@code idempotent.fast-path.redis.*}: optional, off by default.
 */
@NullMarked
package dev.idempotent.fastpath.redis;

import org.jspecify.annotations.NullMarked;
