/**
 * Reconciliation audits: queries over business tables that find keys written more than once.
 */
@NullMarked
package dev.idempotent.audit;

import org.jspecify.annotations.NullMarked;
