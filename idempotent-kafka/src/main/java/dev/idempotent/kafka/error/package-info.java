/**
 * Error handling and dead letters for idempotent listeners: which failures are retried, the recoverer that
 * marks a key FAILED, and the headers of a dead-lettered record. Internal: public for the starter's other packages
 * only.
 */
@NullMarked
package dev.idempotent.kafka.error;

import org.jspecify.annotations.NullMarked;
