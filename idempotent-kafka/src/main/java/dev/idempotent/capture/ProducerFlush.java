package dev.idempotent.capture;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a producer send what it buffered now, without waiting for it: outputs are awaited one claim at a time, and a
 * producer's {@code linger.ms} would delay each of them that long. {@link Producer#flush()} has no bound (it waits
 * for every record the producer holds, up to {@code delivery.timeout.ms}, and with a shared producer for every other
 * thread's records too), so it runs on a thread of its own, and the caller waits only for its own acknowledgments,
 * as long as its timeout allows. While a producer flushes, the records it is given are sent without lingering; a
 * request that arrives during a flush makes it flush once more when that one ends, so no request is lost. Thread-safe.
 */
final class ProducerFlush {

	private static final Logger logger = LoggerFactory.getLogger(ProducerFlush.class);

	private static final AtomicInteger threads = new AtomicInteger();

	private static final ExecutorService executor = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "idempotent-producer-flush-" + threads.incrementAndGet());
		thread.setDaemon(true);
		return thread;
	});

	/** The producers flushing now: {@code true} when another flush was requested meanwhile. */
	private static final ConcurrentMap<Producer<?, ?>, Boolean> flushing = new ConcurrentHashMap<>();

	private ProducerFlush() {
	}

	/**
	 * Start flushing a producer, unless it flushes already (then it flushes again when that flush ends).
	 * @param producer the producer, never {@code null}
	 */
	static void start(Producer<?, ?> producer) {
		if (flushing.put(producer, Boolean.TRUE) == null) {
			executor.execute(() -> flush(producer));
		}
	}

	private static void flush(Producer<?, ?> producer) {
		try {
			do {
				flushing.put(producer, Boolean.FALSE);
				try {
					producer.flush();
				}
				catch (RuntimeException ex) {
					// the records' own futures carry their failures; a closed producer has nothing left to send
					logger.debug("Flushing a producer failed", ex);
				}
			}
			while (!flushing.remove(producer, Boolean.FALSE));
		}
		catch (Error ex) {
			flushing.remove(producer); // a later request flushes it again
			throw ex;
		}
	}

}
