/**
 * The conformance kit: a runnable jar that checks a user's own database against what the idempotent consumer
 * relies on, on throwaway tables of its own, and prints a report with a verdict.
 */
@NullMarked
package dev.idempotent.conformance;

import org.jspecify.annotations.NullMarked;
