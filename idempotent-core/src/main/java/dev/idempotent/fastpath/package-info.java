/**
 * The fast path: an optional accelerator (such as Redis) that answers "processed before" for keys the database
 * committed, so that a replay of processed records needs no database transaction. It is never authoritative: it
 * learns a key only after the key's transaction committed, forgets it no later than retention does, and anything
 * it does not know, or cannot answer in time, goes to the database claim.
 */
@NullMarked
package dev.idempotent.fastpath;

import org.jspecify.annotations.NullMarked;
