/**
 * The checks the kit runs, as JUnit classes: the claim-store and retention contracts of idempotent-core's test
 * suite, pointed at the user's database, and the kit's own error-code and crash checks.
 */
@NullMarked
package dev.idempotent.conformance.checks;

import org.jspecify.annotations.NullMarked;
