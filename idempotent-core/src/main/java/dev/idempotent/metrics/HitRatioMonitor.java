package dev.idempotent.metrics;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.HitOrigin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the hit ratio of each scope over a sliding window ({@link HitRatioWindow}, 10 buckets): the ratio per
 * scope ({@link #ratio}, shown as the gauge {@value HitRatioMeters#HIT_RATIO} by {@link HitRatioMeters}), and a WARN
 * on {@value #LOGGER_NAME} when the ratio rises above {@code threshold} while the window holds at
 * least {@code minSamples} outcomes: an upstream is probably re-sending in bulk. The WARN is logged once per
 * crossing; an INFO follows when the ratio falls back to the threshold or below.
 * <p>The samples are what the upstream sent: claims (new and reclaimed) and hits that are re-sends or of unknown
 * origin ({@link HitOrigin}). Redeliveries (a hit whose stored source is the current record's topic, partition and
 * offset: the consumer read the same record again after a restart, a rebalance or a lost offset commit) are not
 * samples at all, so the first deliveries of a fresh instance, mostly redeliveries, neither raise the ratio nor
 * hide a real re-send. Rejected keys are not samples either. Outcomes arrive once per record, after its
 * transaction committed (see {@link ClaimListener}).
 * <p>Crossings are evaluated as claims arrive; a scope that stops receiving records keeps its state until its next
 * record. Thread-safe.
 *
 * @since 0.1.0
 */
public class HitRatioMonitor implements ClaimListener {

	/** The logger of hit-ratio warnings. */
	public static final String LOGGER_NAME = "dev.idempotent.hit-ratio";

	private static final int BUCKETS = 10;

	private static final Logger logger = LoggerFactory.getLogger(LOGGER_NAME);

	private final Duration window;

	private final double threshold;

	private final long minSamples;

	private final Clock clock;

	private final Map<String, Scope> scopes = new ConcurrentHashMap<>();

	private final List<Consumer<String>> scopeListeners = new CopyOnWriteArrayList<>();

	/**
	 * Create a monitor.
	 * @param window the length of the sliding window, at least 10 ms
	 * @param threshold the ratio above which to warn, from 0 to 1
	 * @param minSamples the fewest outcomes in the window for a warning, 1 or more
	 * @param clock the clock of the window, never {@code null}
	 * @throws IllegalArgumentException if an argument is out of range
	 */
	public HitRatioMonitor(Duration window, double threshold, long minSamples, Clock clock) {
		if (!(threshold >= 0 && threshold <= 1) || minSamples < 1 || window.toMillis() < BUCKETS) {
			throw new IllegalArgumentException("The hit-ratio window must be at least " + BUCKETS + " ms, the threshold"
					+ " from 0 to 1 and the minimum number of samples at least 1; got " + window + ", " + threshold
					+ " and " + minSamples);
		}
		this.window = window;
		this.threshold = threshold;
		this.minSamples = minSamples;
		this.clock = clock;
	}

	/**
	 * Be told of every scope this monitor watches: at once for those seen so far, then as each new one records its
	 * first outcome (on the consumer thread: the callback must be fast and must not throw).
	 * @param listener receives scope names, never {@code null}
	 */
	public synchronized void addScopeListener(Consumer<String> listener) {
		this.scopeListeners.add(listener);
		this.scopes.keySet().forEach(listener);
	}

	@Override
	public void onClaimed(ClaimRequest request, boolean reclaimed, Duration latency) {
		scope(request.scope()).record(false);
	}

	@Override
	public void onHit(ClaimRequest request, ClaimResult.Hit hit, Duration latency) {
		if (HitOrigin.of(request, hit) != HitOrigin.REDELIVERY) {
			scope(request.scope()).record(true);
		}
	}

	/**
	 * Return the hit ratio of a scope over the window: re-sent (and unknown-origin) hits among claims and those hits;
	 * redeliveries are left out.
	 * @param scope the scope, never {@code null}
	 * @return the ratio from 0 to 1, or {@code NaN} if the window holds no outcome of that scope
	 */
	public double ratio(String scope) {
		Scope state = this.scopes.get(scope);
		return (state != null) ? state.window.ratio(this.clock.instant()) : Double.NaN;
	}

	private Scope scope(String name) {
		Scope scope = this.scopes.get(name);
		return (scope != null) ? scope : newScope(name);
	}

	private synchronized Scope newScope(String name) {
		Scope scope = this.scopes.get(name);
		if (scope == null) {
			scope = new Scope(name);
			this.scopes.put(name, scope);
			this.scopeListeners.forEach((listener) -> listener.accept(name));
		}
		return scope;
	}

	private final class Scope {

		private final String name;

		private final HitRatioWindow window = new HitRatioWindow(HitRatioMonitor.this.window, BUCKETS);

		private boolean above;

		Scope(String name) {
			this.name = name;
		}

		void record(boolean hit) {
			Instant now = HitRatioMonitor.this.clock.instant();
			double ratio;
			long samples;
			synchronized (this.window) {
				this.window.record(now, hit);
				ratio = this.window.ratio(now);
				samples = this.window.samples(now);
			}
			crossing(ratio, samples);
		}

		private synchronized void crossing(double ratio, long samples) {
			if (!this.above && samples >= HitRatioMonitor.this.minSamples && ratio > HitRatioMonitor.this.threshold) {
				this.above = true;
				logger.warn("Hit ratio of scope {} is {}% over the last {} s ({} claims), above {}%: records with keys"
						+ " processed before, from other offsets (redeliveries of the same record after a restart or"
						+ " rebalance do not count); an upstream is probably re-sending in bulk. See the runbook section"
						+ " 'Hit ratio above threshold'",
						this.name, percent(ratio, RoundingMode.CEILING), HitRatioMonitor.this.window.toSeconds(), samples,
						percent(HitRatioMonitor.this.threshold, RoundingMode.HALF_UP));
			}
			else if (this.above && ratio <= HitRatioMonitor.this.threshold) {
				this.above = false;
				logger.info("Hit ratio of scope {} is back to {}% over the last {} s ({} claims)", this.name,
						percent(ratio, RoundingMode.FLOOR), HitRatioMonitor.this.window.toSeconds(), samples);
			}
		}

		/**
		 * A ratio in percent with two decimals, rounded away from the threshold it was compared with (a ratio just
		 * above 50% reads 50.01%, not 50.00%).
		 */
		private static String percent(double ratio, RoundingMode rounding) {
			return new BigDecimal(ratio * 100).setScale(2, rounding).toPlainString();
		}

	}

}
