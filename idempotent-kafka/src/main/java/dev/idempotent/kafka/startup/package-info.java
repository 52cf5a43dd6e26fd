/**
 * Checks at startup that refuse setups the starter cannot run safely, naming the fix. Internal: public for
 * the starter's auto-configuration only.
 */
@NullMarked
package dev.idempotent.kafka.startup;

import org.jspecify.annotations.NullMarked;
