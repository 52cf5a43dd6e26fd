package dev.idempotent.capture;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.output.OutputDeliveryException;
import dev.idempotent.output.OutputRejectedException;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * Waits for the broker's acknowledgments of a claim's outputs, and tells a failure that may pass (retry the record:
 * the retry is a hit and sends the stored outputs again) from one that cannot (dead-letter it). Stateless.
 */
final class Acknowledgments {

	private Acknowledgments() {
	}

	static void await(List<Future<RecordMetadata>> acks, Duration timeout, ClaimRequest claim) {
		long deadline = System.nanoTime() + timeout.toNanos();
		for (int i = 0; i < acks.size(); i++) {
			try {
				acks.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException ex) {
				Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
				String what = "Output " + i + " of claim scope=" + claim.scope() + " key="
						+ KeyMasker.MASKED.mask(claim.key()) + " failed: " + cause;
				if (isPermanent(cause)) {
					throw new OutputRejectedException(what + "; sending it again cannot succeed. The claim is"
							+ " SUCCEEDED; the record goes to the dead-letter topic, and its output must be delivered by"
							+ " hand (it is stored in the output table)", cause);
				}
				throw new OutputDeliveryException(what + "; the record is retried, and its retry sends the stored"
						+ " outputs again", cause);
			}
			catch (TimeoutException ex) {
				throw new OutputDeliveryException("Output " + i + " of claim scope=" + claim.scope() + " key="
						+ KeyMasker.MASKED.mask(claim.key()) + " was not acknowledged within " + timeout
						+ " (idempotent.outputs.ack-timeout); the record is retried, and its retry sends the stored"
						+ " outputs again", ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new OutputDeliveryException("Interrupted while waiting for the outputs of claim scope="
						+ claim.scope() + " key=" + KeyMasker.MASKED.mask(claim.key()), ex);
			}
		}
	}

	/** A failure the broker or producer will repeat for the same record. */
	static boolean isPermanent(Throwable failure) {
		return failure instanceof RecordTooLargeException || failure instanceof RecordBatchTooLargeException
				|| failure instanceof InvalidTopicException || failure instanceof InvalidRecordException
				|| failure instanceof AuthorizationException;
	}

}
