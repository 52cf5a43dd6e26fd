/**
 * The claim: requests, results, statuses, the claim store SPI and the transactional executor that runs
 * "claim (SUCCEEDED as of the commit), then work" or "hit, skip" in one transaction.
 */
@NullMarked
package dev.idempotent.claim;

import org.jspecify.annotations.NullMarked;
