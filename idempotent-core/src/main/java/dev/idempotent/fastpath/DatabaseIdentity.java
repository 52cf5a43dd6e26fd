package dev.idempotent.fastpath;

import java.util.UUID;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStore;
import dev.idempotent.claim.DeliverySource;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A random name of the database that holds the claims, so that a fast path shared by deployments with separate
 * databases (one Redis, the same group ids and table name) never answers for the wrong one. The name is kept in the
 * database itself, as one claim in the idempotency table: scope {@value #SCOPE}, key {@value #KEY}, the name in its
 * source topic column. The first application to start claims it with a new random name; every later one, on any
 * node of the same database, reads that name back as a hit. Two separate databases draw two names. When retention
 * removes the row, the next start draws a new name: the keys learnt under the old one are not found again (the
 * database answers), never mistaken. Stateless.
 *
 * @since 0.1.0
 */
public final class DatabaseIdentity {

	/** The scope of the claim that names the database. */
	public static final String SCOPE = "idempotent.fast-path";

	/** The key of the claim that names the database. */
	public static final String KEY = "database-identity";

	/** How many characters of the random name are used: 48 random bits. */
	private static final int LENGTH = 12;

	private DatabaseIdentity() {
	}

	/**
	 * Read the name of the database, drawing and claiming it if it has none.
	 * @param claims the claim store of the idempotency table
	 * @param transactionManager the transaction manager of its database: the claim commits in a transaction of its own
	 * @return the name, 12 lowercase hexadecimal characters
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 */
	public static String of(ClaimStore claims, PlatformTransactionManager transactionManager) {
		String drawn = UUID.randomUUID().toString().replace("-", "").substring(0, LENGTH);
		TransactionTemplate transaction = new TransactionTemplate(transactionManager);
		transaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		ClaimResult result = transaction
			.execute((status) -> claims.claim(new ClaimRequest(SCOPE, KEY, new DeliverySource(drawn, 0, 0))));
		if (result instanceof ClaimResult.Hit hit) {
			DeliverySource kept = hit.source();
			if (kept == null || kept.topic().isBlank()) {
				throw new IllegalStateException("The idempotency table holds a claim scope=" + SCOPE + " key=" + KEY
						+ " without the database's name in its source_topic column; delete that row and start again");
			}
			return kept.topic();
		}
		return drawn;
	}

}
