package dev.idempotent.kafka.listener;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

import dev.idempotent.capture.BatchOutputKeys;
import dev.idempotent.capture.Capture;
import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.capture.LoadedOutputs;
import dev.idempotent.claim.BatchOutcome;
import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimedWork;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.method.ListenerMethod;
import dev.idempotent.output.StoredOutput;
import org.jspecify.annotations.Nullable;

/**
 * The outputs of one delivery of records to an {@link IdempotentListener} method: the one place where a record, a
 * batch and a group commit capture what the method sends under a claim and settle it after the claim's transaction
 * (docs/semantics.md, "Outputs of claims"). The steps:
 * <ol>
 * <li>{@link #run} calls the method inside the claim's transaction while a {@link Capture} records what it sends,
 * and stores that in the transaction before it commits; each attempt of the transaction forgets what an earlier one
 * recorded ({@link #capturing} and {@link #store} split the two, for a LEASED claim that stores in the transaction
 * that completes it);</li>
 * <li>after the transaction committed, {@link #settle} waits until the broker acknowledged what a newly claimed key's
 * call sent, and sends again, and waits for, what a hit's first processing stored. A hit the fast path answered sends
 * nothing: the fast path knows only claims that stored no outputs.</li>
 * </ol>
 * What differs between the three is how records are grouped: a batch's call sends for all its records, under the
 * first claimed one's key, and its outputs take their keys from their content ({@link BatchOutputKeys}) so that they
 * keep them when the batch falls back to one record at a time; a group runs the method once per record, each with
 * outputs of its own.
 * <p>One instance per delivery (a record, a batch, a member of a group); used on the consumer thread; not thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class DeliveryOutputs implements AutoCloseable {

	private final @Nullable ClaimOutputs outputs;

	private final boolean captures;

	private final String listener;

	/** The keys of a batch's outputs, from their content; {@code null}: from the claim and position. */
	private final @Nullable BatchOutputKeys batchKeys;

	/** The capture of the last call (which may have rolled back), until its outputs were awaited; each call replaces it. */
	private @Nullable Capture capture;

	/**
	 * Create the outputs of a delivery.
	 * @param outputs the starter's outputs, or {@code null} when the application has none
	 * @param captures whether the listener captures its outputs (its annotation says)
	 * @param listener names the listener, for messages
	 * @param batchScope for a batch: the listener's scope, which its outputs' keys name; else {@code null}
	 */
	public DeliveryOutputs(@Nullable ClaimOutputs outputs, boolean captures, String listener, @Nullable String batchScope) {
		this.outputs = outputs;
		this.captures = captures;
		this.listener = listener;
		this.batchKeys = (batchScope != null && outputs != null) ? new BatchOutputKeys(batchScope) : null;
	}

	/**
	 * The outputs of the delivery of a record.
	 * @param outputs the starter's outputs, or {@code null} when the application has none
	 * @param listener the listener method
	 * @return the delivery's outputs
	 */
	static DeliveryOutputs ofRecord(@Nullable ClaimOutputs outputs, ListenerMethod listener) {
		return new DeliveryOutputs(outputs, listener.capturesOutputs(), listener.toString(), null);
	}

	/**
	 * The outputs of the delivery of a batch.
	 * @param outputs the starter's outputs, or {@code null} when the application has none
	 * @param listener the batch listener method
	 * @return the delivery's outputs
	 */
	static DeliveryOutputs ofBatch(@Nullable ClaimOutputs outputs, ListenerMethod listener) {
		return new DeliveryOutputs(outputs, listener.capturesOutputs(), listener.toString(), listener.scope());
	}

	/**
	 * Whether what the listener sends is stored with its claims, and sent again on its hits.
	 * @return {@code false} when outputs are off or the listener opted out
	 */
	public boolean captures() {
		return this.outputs != null && this.outputs.captures(this.captures);
	}

	/**
	 * The capture of the call running now (or that ran last), to record a reply with its outputs.
	 * @return the capture, or {@code null} when the application has no outputs or no call ran
	 */
	public @Nullable Capture capture() {
		return this.capture;
	}

	/**
	 * Count a batch's output keys from the start of the delivery again: before the batch's transaction, and before
	 * its records are processed one at a time.
	 */
	void restart() {
		if (this.batchKeys != null) {
			this.batchKeys.restart();
		}
	}

	/** Remember where the next record of a batch processed one at a time starts counting its output keys. */
	void mark() {
		if (this.batchKeys != null) {
			this.batchKeys.mark();
		}
	}

	/**
	 * Call the method in the transaction of a claim and store what it sent there; for each attempt of the
	 * transaction.
	 * @param owner the claim that owns the outputs (a batch's: its first claimed record's)
	 * @param records how many records the call processes
	 * @param call the method's call
	 * @return what the call returned
	 * @throws Throwable what the call threw, or what {@link Capture#store()} throws
	 */
	public @Nullable Object run(ClaimRequest owner, int records, ClaimedWork<@Nullable Object> call) throws Throwable {
		Object value = capturing(owner, records, call);
		store();
		return value;
	}

	/**
	 * Call the method while recording what it sends, forgetting what an earlier attempt recorded, without storing it.
	 * @param owner the claim that owns the outputs
	 * @param records how many records the call processes
	 * @param call the method's call
	 * @return what the call returned
	 * @throws Throwable what the call threw
	 */
	@Nullable Object capturing(ClaimRequest owner, int records, ClaimedWork<@Nullable Object> call) throws Throwable {
		this.capture = null;
		if (this.outputs == null) {
			return call.run();
		}
		if (this.batchKeys != null) {
			this.batchKeys.rewind();
			this.capture = this.outputs.begin(owner, this.captures, this.listener, this.batchKeys, records);
		}
		else {
			this.capture = this.outputs.begin(owner, this.captures, this.listener);
		}
		try (Capture running = this.capture) {
			return call.run();
		}
	}

	/**
	 * Store what the last call sent, in the transaction active now.
	 * @throws dev.idempotent.output.OutputRejectedException if an output was rejected (caught by the method or not)
	 * @throws dev.idempotent.output.OutputDeliveryException if an output was not sent for a cause that may pass
	 */
	void store() {
		if (this.capture != null) {
			this.capture.store();
		}
	}

	/**
	 * After a claim's transaction committed, or found a hit: wait for what the call sent, or send again what the hit's
	 * first processing stored.
	 * @param claim the claim
	 * @param outcome what became of it
	 * @param replies whether the listener replies (a hit's stored reply is returned, not sent)
	 * @return the hit's stored reply, or {@code null}
	 * @throws dev.idempotent.output.OutputDeliveryException if an output was not acknowledged in time
	 * @throws dev.idempotent.output.OutputRejectedException if an output failed for good
	 */
	public @Nullable StoredOutput settle(ClaimRequest claim, ClaimOutcome<?> outcome, boolean replies) {
		if (!captures()) {
			return null;
		}
		if (outcome instanceof ClaimOutcome.Skipped<?> skipped) {
			// the fast path knows only claims that stored no outputs
			return skipped.fromFastPath() ? null : this.outputs.replay(claim, skipped.hit(), replies);
		}
		awaitSent();
		return null;
	}

	/**
	 * After the transaction of several claims committed, in the order of the claims: wait for what each newly claimed
	 * key's call sent, and send again what each hit's first processing stored, its outputs read a window of hits at a
	 * time.
	 * @param claims the claims, in the order of their records
	 * @param outcome what became of them
	 * @param outputsOf the outputs of the delivery of the claim at a position (a batch's: the same for every one)
	 * @param repeats whether a hit on a key claimed in the same transaction sends its outputs again: a group's records
	 * are deliveries of their own; a batch's call sent the outputs of all its records, awaited here already
	 * @param undelivered the failure to throw for the claim at a position whose outputs were not delivered
	 */
	public static void settle(List<ClaimRequest> claims, BatchOutcome<?> outcome, IntFunction<DeliveryOutputs> outputsOf,
			boolean repeats, Undelivered undelivered) {
		Set<Integer> hits = Set.copyOf(outcome.hits());
		Set<Integer> replayed = replayed(claims, outcome, outputsOf, repeats);
		List<ClaimRequest> loading = new ArrayList<>(replayed.size());
		DeliveryOutputs loader = null;
		for (int position = 0; position < claims.size(); position++) {
			if (replayed.contains(position)) {
				loading.add(claims.get(position));
				loader = (loader != null) ? loader : outputsOf.apply(position);
			}
		}
		LoadedOutputs loaded = (loader != null) ? loader.load(loading) : LoadedOutputs.NONE;
		for (int position = 0; position < claims.size(); position++) {
			DeliveryOutputs outputs = outputsOf.apply(position);
			try {
				if (replayed.contains(position)) {
					outputs.replay(claims.get(position), loaded);
				}
				else if (!hits.contains(position)) {
					outputs.awaitSent();
				}
			}
			catch (RuntimeException ex) {
				throw undelivered.of(position, ex);
			}
		}
	}

	/** The positions of the hits that send their stored outputs again. */
	private static Set<Integer> replayed(List<ClaimRequest> claims, BatchOutcome<?> outcome,
			IntFunction<DeliveryOutputs> outputsOf, boolean repeats) {
		Set<ClaimRequest> claimed = new HashSet<>();
		if (!repeats) {
			for (int position : outcome.claimed()) {
				claimed.add(withoutSource(claims.get(position)));
			}
		}
		Set<Integer> fastPathHits = Set.copyOf(outcome.fastPathHits());
		Set<Integer> replayed = new HashSet<>();
		for (int position : outcome.hits()) {
			// the fast path knows only claims that stored no outputs
			if (outputsOf.apply(position).captures() && !fastPathHits.contains(position)
					&& !claimed.contains(withoutSource(claims.get(position)))) {
				replayed.add(position);
			}
		}
		return replayed;
	}

	private static ClaimRequest withoutSource(ClaimRequest request) {
		return new ClaimRequest(request.scope(), request.key(), null);
	}

	private LoadedOutputs load(List<ClaimRequest> claims) {
		return (this.outputs != null) ? this.outputs.load(claims) : LoadedOutputs.NONE;
	}

	private void replay(ClaimRequest claim, LoadedOutputs loaded) {
		if (this.outputs != null) {
			this.outputs.replay(claim, loaded);
		}
	}

	/** Wait, once, until the broker acknowledged what the last call sent. */
	private void awaitSent() {
		Capture sent = this.capture;
		this.capture = null;
		if (sent != null && sent.recording()) {
			sent.awaitSent();
		}
	}

	@Override
	public void close() {
		if (this.capture != null) {
			this.capture.close();
		}
	}

	/** Makes the failure of a claim whose outputs were not delivered. */
	@FunctionalInterface
	public interface Undelivered {

		/**
		 * @param position the claim's position
		 * @param cause why its outputs were not delivered
		 * @return the failure to throw
		 */
		RuntimeException of(int position, RuntimeException cause);

	}

}
