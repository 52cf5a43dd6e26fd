/**
 * Consumed offsets stored with the claims ({@code idempotent.offsets.enabled}): each claim transaction stores the next
 * offset of the partitions it settles, a consumer seeks to the stored offset when it is assigned a partition, and a
 * transaction that finds another offset stored than the one its consumer stored last rolls back and makes the consumer
 * read again from the stored one. Internal: public for the starter's other packages only.
 */
@NullMarked
package dev.idempotent.kafka.offset;

import org.jspecify.annotations.NullMarked;
