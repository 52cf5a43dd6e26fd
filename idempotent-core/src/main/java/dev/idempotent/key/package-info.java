/**
 * Idempotency keys: turning what a key expression produced into a validated key, and the errors for bad keys.
 */
@NullMarked
package dev.idempotent.key;

import org.jspecify.annotations.NullMarked;
