/**
 * Error handling and dead letters for idempotent listeners: which failures are retried, the recoverer that
 * marks a key FAILED, and the headers of a dead-lettered record. {@link dev.idempotent.kafka.error.IdempotentErrorHandlers}
 * is API: an application builds its own error handler with it. The other types are internal: public for the
 * starter's other packages only.
 */
@NullMarked
package dev.idempotent.kafka.error;

import org.jspecify.annotations.NullMarked;
