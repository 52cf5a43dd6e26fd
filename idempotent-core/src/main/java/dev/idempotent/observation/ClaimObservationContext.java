package dev.idempotent.observation;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.key.KeyMasker;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of a claim knows: the scope, the mode, the request (or the requests of a batch), how keys are
 * rendered, and, once the claim returned, its {@link Outcome} (and for a batch, how many records were claimed and how
 * many were hits). Read by {@link ClaimObservationConvention} and {@link BatchClaimObservationConvention}.
 * <p>Used by one thread at a time (the consumer thread, then the observation handlers). Not thread-safe.
 *
 * @since 0.1.0
 */
public class ClaimObservationContext extends Observation.Context {

	private final String scope;

	private final @Nullable ClaimMode mode;

	private final List<ClaimRequest> requests;

	private final boolean batch;

	private final KeyMasker masker;

	private @Nullable Outcome outcome;

	private int claimed;

	private int hits;

	/**
	 * Create a context.
	 * @param scope the scope, never {@code null}
	 * @param mode the claim's mode, {@code null} for a rejected key (no claim was made)
	 * @param requests the requests: one for a claim, every request of a batch, none for a rejected key
	 * @param batch whether this is a batch claim
	 * @param masker renders keys in {@link #maskedKey()}, never {@code null}
	 */
	public ClaimObservationContext(String scope, @Nullable ClaimMode mode, List<ClaimRequest> requests, boolean batch,
			KeyMasker masker) {
		this.scope = Objects.requireNonNull(scope, "scope must not be null");
		this.mode = mode;
		this.requests = List.copyOf(requests);
		this.batch = batch;
		this.masker = Objects.requireNonNull(masker, "masker must not be null");
	}

	/**
	 * Return the scope the keys are claimed in.
	 * @return the scope, never {@code null}
	 */
	public String scope() {
		return this.scope;
	}

	/**
	 * Return the claim's mode.
	 * @return the mode, or {@code null} for a rejected key
	 */
	public @Nullable ClaimMode mode() {
		return this.mode;
	}

	/**
	 * Return the requests: one for a claim, those of a batch in delivery order, none for a rejected key.
	 * @return the requests, never {@code null}
	 */
	public List<ClaimRequest> requests() {
		return this.requests;
	}

	/**
	 * Return whether this is a batch claim.
	 * @return {@code true} for a batch
	 */
	public boolean isBatch() {
		return this.batch;
	}

	/**
	 * Return the outcome.
	 * @return the outcome, or {@code null} while the claim runs
	 */
	public @Nullable Outcome outcome() {
		return this.outcome;
	}

	/**
	 * Set the outcome, once the claim returned or failed.
	 * @param outcome the outcome, never {@code null}
	 */
	public void setOutcome(Outcome outcome) {
		this.outcome = outcome;
	}

	/**
	 * Return how many records of a batch were claimed (new or re-claimed) and processed.
	 * @return the count, 0 for a single claim or while the batch runs
	 */
	public int claimedCount() {
		return this.claimed;
	}

	/**
	 * Return how many records of a batch were hits (processed before, or repeated within the batch).
	 * @return the count, 0 for a single claim or while the batch runs
	 */
	public int hitCount() {
		return this.hits;
	}

	/**
	 * Set the counts of a batch once it returned.
	 * @param claimed how many records were claimed, 0 or more
	 * @param hits how many records were hits, 0 or more
	 */
	public void setBatchCounts(int claimed, int hits) {
		this.claimed = claimed;
		this.hits = hits;
	}

	/**
	 * Return the key of a single claim as the masker renders it (masked by default: keys can be personal data).
	 * @return the rendered key, or {@code null} for a batch or a rejected key
	 */
	public @Nullable String maskedKey() {
		return (!this.batch && this.requests.size() == 1) ? this.masker.mask(this.requests.get(0).key()) : null;
	}

	/**
	 * Return where the records came from: {@code topic-partition@offset} for a single record; for a batch, each
	 * topic-partition with its offset range, such as {@code orders-0@10..19 orders-1@4..7}.
	 * @return the description, or {@code null} when no request has a source (a non-Kafka caller, a rejected key)
	 */
	public @Nullable String source() {
		List<DeliverySource> sources = this.requests.stream().map(ClaimRequest::source).filter(Objects::nonNull).toList();
		if (sources.isEmpty()) {
			return null;
		}
		if (sources.size() == 1) {
			return sources.get(0).toString();
		}
		Map<String, long[]> ranges = new TreeMap<>();
		for (DeliverySource source : sources) {
			long[] range = ranges.computeIfAbsent(source.topic() + "-" + source.partition(),
					(partition) -> new long[] { source.offset(), source.offset() });
			range[0] = Math.min(range[0], source.offset());
			range[1] = Math.max(range[1], source.offset());
		}
		return ranges.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "@" + entry.getValue()[0]
					+ ((entry.getValue()[1] != entry.getValue()[0]) ? ".." + entry.getValue()[1] : ""))
			.collect(Collectors.joining(" "));
	}

	/**
	 * What a claim came to, as the observation's {@code idempotent.outcome}.
	 */
	public enum Outcome {

		/** A new row was claimed and the work ran (a batch: at least one record was claimed). */
		CLAIMED,

		/** A FAILED row was taken over and the work ran. */
		RECLAIMED,

		/** An idempotent hit: the key was processed before, the work was skipped (a batch: every record). */
		HIT,

		/** A hit whose payload fingerprint differs from the first claim's; the work was skipped. */
		CONFLICT,

		/** The key was bad input; no claim was made, the record goes to the dead-letter topic. */
		REJECTED,

		/** LEASED mode: another consumer holds a live lease on the key; retried later. */
		IN_PROGRESS,

		/** The claim, the work or the commit failed; everything was rolled back (the error is on the observation). */
		FAILED;

		/**
		 * Return the value of the {@code idempotent.outcome} key.
		 * @return the lower-case value, such as {@code hit} or {@code in-progress}
		 */
		public String value() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

}
