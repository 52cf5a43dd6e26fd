/**
 * Outputs of claims: the records a listener sent while it ran under a claim, stored in the claim's transaction so
 * that a later idempotent hit of the same key can send them again instead of losing them.
 */
@NullMarked
package dev.idempotent.output;

import org.jspecify.annotations.NullMarked;
