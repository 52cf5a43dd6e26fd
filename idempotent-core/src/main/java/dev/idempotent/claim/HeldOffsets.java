package dev.idempotent.claim;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Marks a claim transaction that stored something a redelivery must send again (outputs, replies): the offsets it
 * stores ({@link ClaimOffsets}) then stay at its first delivery of each partition instead of moving past its last, so
 * that a crash after its commit and before what it sent was acknowledged redelivers those deliveries as hits, which
 * send it again. The next transaction of the partition, begun once that was acknowledged, moves past them.
 *
 * @since 0.1.0
 */
public final class HeldOffsets {

	private static final Object HELD = new Object();

	private HeldOffsets() {
	}

	/**
	 * Mark the transaction active on this thread. Does nothing outside a transaction with synchronization.
	 */
	public static void hold() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| TransactionSynchronizationManager.hasResource(HELD)) {
			return;
		}
		TransactionSynchronizationManager.bindResource(HELD, Boolean.TRUE);
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				TransactionSynchronizationManager.unbindResourceIfPossible(HELD);
			}

		});
	}

	/**
	 * Whether the transaction active on this thread was marked.
	 * @return {@code true} after {@link #hold} in this transaction
	 */
	public static boolean held() {
		return TransactionSynchronizationManager.hasResource(HELD);
	}

}
