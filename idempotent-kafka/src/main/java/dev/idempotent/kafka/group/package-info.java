/**
 * Group commit: the records of a poll of a single-record listener claimed and committed in groups. Internal:
 * public for the starter's other packages only.
 */
@NullMarked
package dev.idempotent.kafka.group;

import org.jspecify.annotations.NullMarked;
