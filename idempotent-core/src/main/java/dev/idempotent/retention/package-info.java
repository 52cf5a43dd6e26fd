/**
 * Retention, the deduplication window: which rows of the idempotency table may go (SUCCEEDED ones, FAILED ones
 * on request, older than a period), the job that archives or deletes them in small transactions safely from
 * several instances at once, and what happens to a record older than the window.
 */
@NullMarked
package dev.idempotent.retention;

import org.jspecify.annotations.NullMarked;
