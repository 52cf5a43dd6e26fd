package dev.idempotent.capture;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.HitOrigin;
import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.output.OutputDeliveryException;
import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.output.OutputSettings;
import dev.idempotent.output.OutputStore;
import dev.idempotent.output.StoredOutput;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.core.ProducerFactory;
import org.springframework.util.function.SingletonSupplier;

/**
 * The outputs of claims, for whatever runs a listener under a claim (the listener advice, a batch, a LEASED claim, a
 * group commit of record listeners): {@link #begin} a {@link Capture} per claim before its work, and on an idempotent
 * hit {@link #replay} what the first processing stored. Thread-safe.
 *
 * @since 0.1.0
 */
public final class ClaimOutputs {

	private static final Logger logger = LoggerFactory.getLogger(ClaimOutputs.class);

	private final OutputStore store;

	private final OutputSettings settings;

	/** Sends again the outputs of the default producer factory (those stored without the factory's name, too). */
	private final Supplier<OutputReplay> replay;

	/** The capturing producer factory bean of a name, or {@code null}. */
	private final Function<String, @Nullable ProducerFactory<Object, Object>> factories;

	private final Map<ProducerFactory<Object, Object>, OutputReplay> replays = new ConcurrentHashMap<>();

	private final OutputMeters meters;

	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	private volatile boolean shadow;

	/**
	 * Create the outputs.
	 * @param store where outputs are stored
	 * @param settings limits and timeouts
	 * @param producerFactory supplies, at the first hit with outputs, the producer factory (one the starter captures
	 * on) whose producer sends stored outputs again
	 * @param meters counts stored and replayed outputs
	 */
	public ClaimOutputs(OutputStore store, OutputSettings settings,
			Supplier<ProducerFactory<Object, Object>> producerFactory, OutputMeters meters) {
		this(store, settings, producerFactory, (name) -> null, meters);
	}

	/**
	 * Create the outputs, sending each stored output again through the factory that sent it.
	 * @param store where outputs are stored
	 * @param settings limits and timeouts
	 * @param producerFactory supplies, at the first hit with outputs, the producer factory that sends outputs stored
	 * without the name of theirs, or whose factory is gone
	 * @param factories the capturing producer factory bean of a name ({@link ProducerCaptureInstaller#named}), or
	 * {@code null}
	 * @param meters counts stored and replayed outputs
	 * @since 0.1.0
	 */
	public ClaimOutputs(OutputStore store, OutputSettings settings,
			Supplier<ProducerFactory<Object, Object>> producerFactory,
			Function<String, @Nullable ProducerFactory<Object, Object>> factories, OutputMeters meters) {
		this.store = store;
		this.settings = settings;
		this.replay = SingletonSupplier.of(() -> this.replays.computeIfAbsent(producerFactory.get(), OutputReplay::new));
		this.factories = factories;
		this.meters = meters;
	}

	/**
	 * Turn shadow mode on or off: in shadow mode nothing is captured (every duplicate runs its method, which sends
	 * as without the library), while what was stored before stays readable. Call before the outputs are used.
	 * @param shadow whether shadow mode is on; {@code false} by default
	 * @since 0.1.0
	 */
	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	/**
	 * Begin capturing the outputs of a claim on this thread.
	 * @param claim the claim the work runs under
	 * @param capture whether the listener captures its outputs; when not (opted out, or outputs are off), a send is not
	 * recorded, and the first send of each listener logs one WARN saying what can be lost
	 * @param listener names the listener, for messages
	 * @return the capture; close it in a {@code finally}
	 */
	public Capture begin(ClaimRequest claim, boolean capture, String listener) {
		return new Capture(claim, this, captures(capture), listener, null, 1).bind();
	}

	/**
	 * Begin capturing, on this thread, the outputs of a call of a batch listener: they are stored under one claim
	 * (the call cannot tell which record an output belongs to), up to {@code idempotent.outputs.max-count} per record
	 * of the call, and those without a key get one from their content ({@link BatchOutputKeys}), the same whether the
	 * batch or one of its records sends them.
	 * @param claim the claim the outputs are stored under
	 * @param capture whether the listener captures its outputs (see {@link #begin})
	 * @param listener names the listener, for messages
	 * @param keys the keys of the delivery's outputs
	 * @param records how many records the call processes
	 * @return the capture; close it in a {@code finally}
	 * @since 0.1.0
	 */
	public Capture begin(ClaimRequest claim, boolean capture, String listener, BatchOutputKeys keys, int records) {
		return new Capture(claim, this, captures(capture), listener, keys, records).bind();
	}

	/**
	 * Tell whether a listener's outputs are captured (and so replayed on its hits).
	 * @param listenerCaptures what the listener's annotation says
	 * @return whether they are, the global switch considered
	 */
	public boolean captures(boolean listenerCaptures) {
		return capturesOutsideShadowMode(listenerCaptures) && !this.shadow;
	}

	/**
	 * Tell whether a listener's outputs are captured once shadow mode is off, for the startup checks that hold for
	 * that deployment.
	 * @param listenerCaptures what the listener's annotation says
	 * @return whether they are, the global switch considered, shadow mode not
	 * @since 0.1.0
	 */
	public boolean capturesOutsideShadowMode(boolean listenerCaptures) {
		return listenerCaptures && this.settings.enabled();
	}

	/**
	 * Send the stored outputs of a hit's claim again, unless they are known to be delivered: under the container's
	 * Kafka transaction, a hit from another record with the same key (an upstream re-send) finds outputs that committed
	 * in the first record's transaction (had it aborted, that record would have been redelivered first, and its hit
	 * would have sent them), so they are not sent again, which keeps them exactly once for {@code read_committed}
	 * readers. Otherwise (a redelivery of the record that stored them, or no Kafka transaction) they are sent again.
	 * A stored reply ({@link Replies#isReply}) is not sent here but returned: it goes to the request at hand, whatever
	 * the hit's origin, through spring-kafka ({@link PendingReply}).
	 * @param claim the claim that was a hit
	 * @param hit what the claim found
	 * @param replies whether the listener replies (else a stored reply is not looked for)
	 * @return the claim's stored reply, or {@code null} if it has none or {@code replies} is {@code false}
	 * @throws OutputDeliveryException if an output was not acknowledged in time (retry the record)
	 * @throws OutputRejectedException if an output failed for good
	 */
	public @Nullable StoredOutput replay(ClaimRequest claim, ClaimResult.Hit hit, boolean replies) {
		StoredOutput reply = send(claim, null, HitOrigin.of(claim, hit) == HitOrigin.RESEND).reply();
		if (!replies) {
			return null;
		}
		if (reply != null) {
			this.meters.replayed(claim.scope(), 1); // spring-kafka sends it, after the advice returned
		}
		return reply;
	}

	/**
	 * Send the stored outputs of a claim again, in order, and wait for their acknowledgments: for an idempotent hit,
	 * before its offset is committed. A stored reply is not sent (only a reply to a request sends it).
	 * @param claim the claim that was a hit
	 * @return how many outputs were sent again
	 * @throws OutputDeliveryException if an output was not acknowledged in time (retry the record)
	 * @throws OutputRejectedException if an output failed for good
	 */
	public int replay(ClaimRequest claim) {
		return replay(claim, LoadedOutputs.NONE);
	}

	/**
	 * Like {@link #replay(ClaimRequest)}, with the outputs read by {@code loaded} when it reads them.
	 * @param claim the claim that was a hit
	 * @param loaded the reader of several hits' outputs ({@link #load}), or {@link LoadedOutputs#NONE}
	 * @return how many outputs were sent again
	 * @throws OutputDeliveryException if an output was not acknowledged in time (retry the record)
	 * @throws OutputRejectedException if an output failed for good
	 * @throws org.springframework.dao.DataAccessException if the outputs cannot be read
	 * @since 0.1.0
	 */
	public int replay(ClaimRequest claim, LoadedOutputs loaded) {
		return send(claim, loaded.of(claim), false).count();
	}

	/**
	 * Prepare to read the stored outputs of the hits of a batch or group together, a statement per
	 * {@value LoadedOutputs#WINDOW} hits or per {@link OutputSettings#replayBuffer} bytes of outputs, as
	 * {@link #replay(ClaimRequest, LoadedOutputs)} replays them in this order.
	 * Reads nothing yet.
	 * @param claims the hits, in the order they will be replayed, never {@code null}
	 * @return the reader; {@link LoadedOutputs#NONE} for no claims
	 * @since 0.1.0
	 */
	public LoadedOutputs load(List<ClaimRequest> claims) {
		return claims.isEmpty() ? LoadedOutputs.NONE
				: new LoadedOutputs(this.store, claims, this.settings.replayBuffer());
	}

	/**
	 * Send a claim's outputs again, each through the factory that sent it, in order per factory, and wait for them:
	 * those given, else read from the store a part at a time ({@link OutputSettings#replayBuffer}), each part sent
	 * before the next is read. Of a re-send's hit ({@code resend}), the outputs of a factory the container's Kafka
	 * transaction is active on are not sent: they committed in the first record's transaction.
	 * @return how many outputs were sent, and the claim's stored reply (not sent)
	 */
	private Replayed send(ClaimRequest claim, @Nullable List<StoredOutput> loaded, boolean resend) {
		List<Future<RecordMetadata>> acks = new ArrayList<>();
		int count;
		StoredOutput reply;
		if (loaded != null) {
			count = send(claim, loaded, 0, resend, acks);
			reply = lastReply(loaded, null);
		}
		else {
			count = 0;
			reply = null;
			int perRead = this.settings.outputsPerRead();
			for (int from = 0;; from += perRead) {
				List<StoredOutput> part = this.store.load(claim.scope(), claim.key(), from, perRead);
				count += send(claim, part, from, resend, acks);
				reply = lastReply(part, reply);
				if (part.size() < perRead) {
					break;
				}
			}
		}
		if (count > 0) {
			Acknowledgments.await(acks, this.settings.ackTimeout(), claim);
			this.meters.replayed(claim.scope(), count);
		}
		return new Replayed(count, reply);
	}

	private static @Nullable StoredOutput lastReply(List<StoredOutput> outputs, @Nullable StoredOutput before) {
		StoredOutput reply = before;
		for (StoredOutput output : outputs) {
			if (Replies.isReply(output)) {
				reply = output;
			}
		}
		return reply;
	}

	/**
	 * Send some of a claim's outputs, from a sequence number on, adding their acknowledgments' futures.
	 * @return how many were sent
	 */
	private int send(ClaimRequest claim, List<StoredOutput> outputs, int firstSequence, boolean resend,
			List<Future<RecordMetadata>> acks) {
		Map<OutputReplay, List<StoredOutput>> byFactory = new LinkedHashMap<>();
		for (StoredOutput output : outputs) {
			if (!Replies.isReply(output)) {
				byFactory.computeIfAbsent(replayOf(output), (replay) -> new ArrayList<>()).add(output);
			}
		}
		int count = 0;
		for (Map.Entry<OutputReplay, List<StoredOutput>> factory : byFactory.entrySet()) {
			OutputReplay replay = factory.getKey();
			if (resend && replay.inKafkaTransaction()) {
				continue;
			}
			Set<StoredOutput> mine = Collections.newSetFromMap(new IdentityHashMap<>());
			mine.addAll(factory.getValue());
			acks.addAll(replay.resend(claim, outputs, firstSequence, this.settings.keyHeader(), mine::contains));
			count += mine.size();
		}
		return count;
	}

	/** What a replay of a claim did: how many outputs it sent, and the claim's stored reply. */
	private record Replayed(int count, @Nullable StoredOutput reply) {
	}

	/** What sends an output again: the factory that sent it, else the default one. */
	private OutputReplay replayOf(StoredOutput output) {
		String name = SendingFactory.of(output);
		ProducerFactory<Object, Object> factory = (name != null) ? this.factories.apply(name) : null;
		return (factory != null) ? this.replays.computeIfAbsent(factory, OutputReplay::new) : this.replay.get();
	}

	/**
	 * Tell which of several keys of one scope have stored outputs (their hits must reach the database, see
	 * {@link dev.idempotent.fastpath.DatabaseOnlyHits}); none when outputs are off. In shadow mode too, since outputs
	 * stored before it stay there.
	 * @param scope the claims' scope, never {@code null}
	 * @param keys the claims' idempotency keys, never {@code null}
	 * @return those of {@code keys} with stored outputs, never {@code null}
	 * @throws org.springframework.dao.DataAccessException if the database fails
	 * @since 0.1.0
	 */
	public Set<String> keysWithOutputs(String scope, Collection<String> keys) {
		return this.settings.enabled() ? this.store.keysWithOutputs(scope, keys) : Set.of();
	}

	OutputStore store() {
		return this.store;
	}

	OutputSettings settings() {
		return this.settings;
	}

	OutputMeters meters() {
		return this.meters;
	}

	void warnUncaptured(String listener, String topic) {
		if (!this.shadow && this.warned.add(listener)) {
			logger.warn("@IdempotentListener method {} sent a record to {} while its outputs are not captured"
					+ " ({}): a crash after its claim committed and before the record was delivered loses the record,"
					+ " and a redelivery that is an idempotent hit does not send it again. Turn capture on"
					+ " (idempotent.outputs.enabled=true, @IdempotentListener(outputs = true)) unless losing it is"
					+ " acceptable.", listener, topic,
					this.settings.enabled() ? "@IdempotentListener(outputs = false)" : "idempotent.outputs.enabled=false");
		}
	}

}
