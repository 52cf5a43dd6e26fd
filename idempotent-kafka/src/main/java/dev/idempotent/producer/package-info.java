/**
 * The producer side: an interceptor that gives records an idempotency key, and the check of producer settings
 * that lose or duplicate records before a consumer can deduplicate them.
 */
@NullMarked
package dev.idempotent.producer;

import org.jspecify.annotations.NullMarked;
