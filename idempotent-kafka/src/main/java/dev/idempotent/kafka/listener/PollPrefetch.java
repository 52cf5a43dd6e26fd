package dev.idempotent.kafka.listener;

import java.util.ArrayList;
import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.kafka.support.PolledRecords;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the fast path, on the first record of each poll a single-record listener receives, about the keys of every
 * record of that poll in one lookup ({@link TransactionalClaimExecutor#prefetch}), so that a replay costs one
 * round trip to Redis per poll instead of one per record. The other records' keys are produced from their own
 * records, with the arguments of the record being delivered where the key expression reads a method argument: the
 * payload argument is swapped for the other record's value when that value is already of the parameter's type (a
 * typed deserializer), a {@code ConsumerRecord} argument for the other record; a key that cannot be produced so is
 * left out, and one produced from another record's header arguments may be wrong. Neither matters for correctness:
 * each record's own key is produced as always, and a prefetched answer is only used for the key it was asked for. A
 * wrong or left-out key costs a lookup of its own when its record comes. Never throws. Thread-safe (stateless; the
 * poll is bound per thread by {@link PolledRecords}).
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class PollPrefetch {

	private static final Logger logger = LoggerFactory.getLogger(PollPrefetch.class);

	private PollPrefetch() {
	}

	/**
	 * Prefetch the answers for the poll of {@code record}, if it is the first record of a poll bound to this thread.
	 * @param executor the executor that will claim the records
	 * @param listener the listener method
	 * @param request the claim request of {@code record}
	 * @param record the record being delivered
	 * @param arguments the method's arguments for {@code record}
	 */
	static void before(TransactionalClaimExecutor executor, ListenerMethod listener, ClaimRequest request,
			ConsumerRecord<?, ?> record, @Nullable Object[] arguments) {
		ConsumerRecords<?, ?> poll = PolledRecords.take();
		if (poll == null || poll.count() < 2 || !executor.hasFastPath()) {
			return;
		}
		try {
			List<ClaimRequest> requests = new ArrayList<>(poll.count());
			for (ConsumerRecord<?, ?> polled : poll) {
				ClaimRequest polledRequest = samePosition(polled, record) ? request
						: listener.requestOfPolled(request.scope(), polled, arguments);
				if (polledRequest != null) {
					requests.add(polledRequest);
				}
			}
			executor.prefetch(requests);
		}
		catch (RuntimeException ex) {
			// an optimisation only (a broken FastPath or listener implementation): each record asks on its own
			logger.debug("Prefetching the fast path's answers for a poll failed", ex);
		}
	}

	private static boolean samePosition(ConsumerRecord<?, ?> a, ConsumerRecord<?, ?> b) {
		return a.offset() == b.offset() && a.partition() == b.partition() && a.topic().equals(b.topic());
	}

}
