/**
 * {@code @SendTo} replies of idempotent listeners, stored with their claims and sent again on a hit. Internal:
 * public for the starter's other packages only.
 */
@NullMarked
package dev.idempotent.kafka.reply;

import org.jspecify.annotations.NullMarked;
