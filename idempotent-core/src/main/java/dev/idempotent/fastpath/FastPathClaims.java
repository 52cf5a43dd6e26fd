package dev.idempotent.fastpath;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The claim executor's side of a {@link FastPath}: lookups that never throw, keys remembered only after their
 * transaction committed, and a pause after an error.
 * <ul>
 * <li>{@link #lookUp} and {@link #lookUpAll} answer a {@link ClaimResult.Hit} for a key the fast path knows, and
 * {@code null} for anything else (unknown, an error, a timeout, or the fast path paused): the caller then claims in
 * the database. {@link #prefetch} asks for keys a thread will look up one by one later, in one lookup.</li>
 * <li>After an error, the fast path is not asked (nor told) anything for {@code pauseAfterError}: while it is away
 * (Redis unreachable), records go straight to the database instead of each waiting for a timeout first. The first
 * call after the pause tries it again (one probe; a circuit breaker that half-opens).</li>
 * <li>{@link #rememberAfterCommit} registers the key with the current transaction and passes it to the fast path
 * only after that transaction committed; a rollback forgets it. Only keys whose row is SUCCEEDED as of the commit
 * are passed: a key newly claimed in the transaction, or a hit on a SUCCEEDED row. A hit on a row in another status
 * (PROCESSING under a lease; a FAILED row is never a hit, it is claimed again) or whose status could not be read is
 * not remembered. Keys kept out with {@link DatabaseOnlyKeys} are not remembered, nor hits on keys that
 * {@link DatabaseOnlyHits} selects.</li>
 * </ul>
 * Thread-safe.
 *
 * @since 0.1.0
 */
public final class FastPathClaims {

	/** No fast path: every lookup answers {@code null} at once, nothing is remembered. */
	public static final FastPathClaims NONE = new FastPathClaims(null, FastPathListener.NO_OP, Duration.ZERO,
			Clock.systemUTC(), DatabaseOnlyHits.NONE);

	/** Default pause after an error. */
	public static final Duration DEFAULT_PAUSE_AFTER_ERROR = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(FastPathClaims.class);

	private final @Nullable FastPath fastPath;

	private final FastPathListener listener;

	private final long pauseNanos;

	private final Clock clock;

	private final DatabaseOnlyHits databaseOnlyHits;

	/** {@link System#nanoTime} before which the fast path is not asked; 0 when not paused. */
	private final AtomicLong pausedUntil = new AtomicLong();

	/** The answers of the last {@link #prefetch} on each thread. */
	private final ThreadLocal<PrefetchedAnswers> prefetched = new ThreadLocal<>();

	/** Whether {@link DatabaseOnlyHits} failed once already (a WARN the first time only). */
	private volatile boolean databaseOnlyHitsFailed;

	/** Whether the last call failed: a WARN when it starts failing, an INFO when it answers again. */
	private volatile boolean failing;

	/**
	 * Create the executor's side of a fast path that learns every hit found on a SUCCEEDED row
	 * ({@link DatabaseOnlyHits#NONE}). Where claims store something their hits must read back (the starter's
	 * outputs), use the constructor that takes a {@link DatabaseOnlyHits}: the starter's auto-configuration does.
	 * @param fastPath the fast path, never {@code null}
	 * @param listener observes lookups and remembered keys; {@link FastPathListener#NO_OP} for none
	 * @param pauseAfterError how long not to ask the fast path after an error, zero or more
	 * @throws IllegalArgumentException if {@code pauseAfterError} is negative
	 */
	public FastPathClaims(FastPath fastPath, FastPathListener listener, Duration pauseAfterError) {
		this(fastPath, listener, pauseAfterError, DatabaseOnlyHits.NONE);
	}

	/**
	 * Create the executor's side of a fast path whose hits may need the database.
	 * @param fastPath the fast path, never {@code null}
	 * @param listener observes lookups and remembered keys; {@link FastPathListener#NO_OP} for none
	 * @param pauseAfterError how long not to ask the fast path after an error, zero or more
	 * @param databaseOnlyHits selects the hits that must not be remembered (keys with stored outputs)
	 * @throws IllegalArgumentException if {@code pauseAfterError} is negative
	 * @since 0.1.0
	 */
	public FastPathClaims(FastPath fastPath, FastPathListener listener, Duration pauseAfterError,
			DatabaseOnlyHits databaseOnlyHits) {
		this(fastPath, listener, pauseAfterError, Clock.systemUTC(), databaseOnlyHits);
	}

	private FastPathClaims(@Nullable FastPath fastPath, FastPathListener listener, Duration pauseAfterError,
			Clock clock, DatabaseOnlyHits databaseOnlyHits) {
		if (pauseAfterError.isNegative()) {
			throw new IllegalArgumentException("pauseAfterError must not be negative");
		}
		this.fastPath = fastPath;
		this.listener = listener;
		this.pauseNanos = pauseAfterError.toNanos();
		this.clock = clock;
		this.databaseOnlyHits = databaseOnlyHits;
	}

	/**
	 * Whether there is a fast path at all.
	 * @return {@code false} for {@link #NONE}
	 */
	public boolean enabled() {
		return this.fastPath != null;
	}

	/**
	 * Ask the fast path about one key. A key {@link #prefetch prefetched} on this thread is answered from the
	 * prefetch, once, without asking the fast path again.
	 * @param request the claim request, never {@code null}
	 * @return the hit when the fast path knows the key, else {@code null}: claim it in the database
	 */
	public ClaimResult.@Nullable Hit lookUp(ClaimRequest request) {
		PrefetchedAnswers.Answer answer = prefetchedAnswer(request);
		if (answer != null) {
			return answer.hit();
		}
		List<ClaimResult.@Nullable Hit> hits = lookUpAll(List.of(request));
		return hits.get(0);
	}

	/**
	 * Ask the fast path about several keys of one scope, in one lookup.
	 * @param requests the claim requests, never {@code null}
	 * @return per request, in order, the hit when the fast path knows its key, else {@code null}
	 */
	public List<ClaimResult.@Nullable Hit> lookUpAll(List<ClaimRequest> requests) {
		List<FastPathAnswer> answers = ask(requests);
		if (answers == null) {
			return Collections.nCopies(requests.size(), null);
		}
		List<ClaimResult.@Nullable Hit> hits = new ArrayList<>(answers.size());
		for (FastPathAnswer answer : answers) {
			hits.add((answer instanceof FastPathAnswer.Known known) ? known.hit() : null);
		}
		return hits;
	}

	/**
	 * Ask the fast path, in one lookup, about keys of one scope that will be claimed one by one on this thread
	 * afterwards (the rest of a poll, for a record listener), and keep its answers on this thread: {@link #lookUp}
	 * then answers each of them once from what this lookup found, without a round trip of its own. The answers
	 * replace those of an earlier prefetch on this thread and are used for at most a minute. Keys the lookup could
	 * not answer (an error, a timeout, the fast path paused) are not kept. A key requested that is never claimed
	 * costs its part of the lookup and nothing else, so a caller may include keys it is unsure of. Does nothing
	 * without a fast path.
	 * @param requests the claim requests, never {@code null}
	 * @since 0.1.0
	 */
	public void prefetch(List<ClaimRequest> requests) {
		this.prefetched.remove();
		List<FastPathAnswer> answers = ask(requests);
		if (answers != null) {
			this.prefetched.set(PrefetchedAnswers.of(requests, answers, System.nanoTime()));
		}
	}

	/** The prefetched answer for a request's key, taken once; {@code null} if there is none. */
	private PrefetchedAnswers.@Nullable Answer prefetchedAnswer(ClaimRequest request) {
		PrefetchedAnswers answers = this.prefetched.get();
		if (answers == null) {
			return null;
		}
		if (answers.expired(System.nanoTime())) {
			this.prefetched.remove();
			return null;
		}
		return answers.take(request);
	}

	/**
	 * Ask the fast path, observe the lookup, and pause it after an error.
	 * @return one answer per request, or {@code null} when there is no fast path, nothing to ask, or it is paused
	 */
	private @Nullable List<FastPathAnswer> ask(List<ClaimRequest> requests) {
		FastPath path = this.fastPath;
		if (path == null || requests.isEmpty()) {
			return null;
		}
		String scope = requests.get(0).scope();
		if (paused()) {
			observe(() -> this.listener.onBypassed(scope, requests.size()));
			return null;
		}
		long start = System.nanoTime();
		List<FastPathAnswer> answers;
		try {
			answers = path.knowAll(requests);
			if (answers.size() != requests.size()) {
				throw new IllegalStateException(path.getClass().getName() + ".knowAll answered " + answers.size()
						+ " of " + requests.size() + " requests");
			}
		}
		catch (RuntimeException ex) {
			// the SPI says never to throw; a broken implementation must not stop the stream either
			answers = Collections.nCopies(requests.size(), new FastPathAnswer.Failed(ex));
		}
		Duration latency = Duration.ofNanos(System.nanoTime() - start);
		int known = 0;
		int failed = 0;
		Exception error = null;
		for (FastPathAnswer answer : answers) {
			if (answer instanceof FastPathAnswer.Known) {
				known++;
			}
			else if (answer instanceof FastPathAnswer.Failed f) {
				failed++;
				error = f.error();
			}
		}
		int unknown = requests.size() - known - failed;
		int knownKeys = known;
		int failedKeys = failed;
		observe(() -> this.listener.onLookup(scope, knownKeys, unknown, failedKeys, latency));
		if (error != null) {
			failed(error);
		}
		else {
			answered();
		}
		return answers;
	}

	/**
	 * Remember a claim's key once the current transaction commits (see the class description for which keys).
	 * Does nothing without a fast path or without transaction synchronization (the commit could not be seen).
	 * @param request the claim request, never {@code null}
	 * @param result what the claim found, never {@code null}
	 */
	public void rememberAfterCommit(ClaimRequest request, ClaimResult result) {
		if (this.fastPath == null || !TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		RememberedClaim claim = rememberable(request, result);
		if (claim != null) {
			synchronization().add(claim, result instanceof ClaimResult.Hit);
		}
	}

	private @Nullable RememberedClaim rememberable(ClaimRequest request, ClaimResult result) {
		if (result instanceof ClaimResult.Claimed) {
			return new RememberedClaim(request, this.clock.instant());
		}
		ClaimResult.Hit hit = (ClaimResult.Hit) result;
		if (hit.status() != ClaimStatus.SUCCEEDED) {
			return null;
		}
		// what the row holds, not the current delivery's: a later hit is compared with the first claim
		Instant processedAt = (hit.firstProcessedAt() != null) ? hit.firstProcessedAt() : this.clock.instant();
		return new RememberedClaim(new ClaimRequest(request.scope(), request.key(), hit.source(), hit.fingerprint()),
				processedAt);
	}

	private RememberAfterCommit synchronization() {
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof RememberAfterCommit remember && remember.ownedBy(this)) {
				return remember;
			}
		}
		RememberAfterCommit remember = new RememberAfterCommit(this, this::remember);
		TransactionSynchronizationManager.registerSynchronization(remember);
		return remember;
	}

	private void remember(List<RememberedClaim> committed, Set<List<String>> hits) {
		FastPath path = this.fastPath;
		if (path == null || paused()) {
			return;
		}
		List<RememberedClaim> claims = withoutDatabaseOnlyHits(committed, hits);
		if (claims.isEmpty()) {
			return;
		}
		Exception error;
		try {
			error = path.remember(claims);
		}
		catch (RuntimeException ex) {
			error = ex;
		}
		Exception rememberError = error;
		observe(() -> this.listener.onRemember(claims.size(), rememberError)); // after a commit: must not throw
		if (error != null) {
			failed(error);
		}
		else {
			answered();
		}
	}

	/**
	 * The committed claims without the hits whose keys must stay in the database ({@link DatabaseOnlyHits}); without
	 * any hit at all if that cannot be told.
	 */
	private List<RememberedClaim> withoutDatabaseOnlyHits(List<RememberedClaim> committed, Set<List<String>> hits) {
		if (hits.isEmpty() || this.databaseOnlyHits == DatabaseOnlyHits.NONE) {
			return committed;
		}
		Map<String, List<String>> hitKeys = new HashMap<>();
		for (RememberedClaim claim : committed) {
			List<String> id = List.of(claim.request().scope(), claim.request().key());
			if (hits.contains(id)) {
				hitKeys.computeIfAbsent(id.get(0), (scope) -> new ArrayList<>()).add(id.get(1));
			}
		}
		Set<List<String>> databaseOnly = new HashSet<>();
		try {
			hitKeys.forEach((scope, keys) -> this.databaseOnlyHits.of(scope, keys)
				.forEach((key) -> databaseOnly.add(List.of(scope, key))));
		}
		catch (RuntimeException ex) {
			if (!this.databaseOnlyHitsFailed) {
				this.databaseOnlyHitsFailed = true;
				logger.warn("Could not tell which idempotent hits need the database ({}); the fast path does not learn "
						+ "hits until it can (claims are still learnt); logged once, then at DEBUG", ex.toString());
			}
			else {
				logger.debug("Could not tell which hits need the database; none is remembered", ex);
			}
			databaseOnly.addAll(hits);
		}
		if (databaseOnly.isEmpty()) {
			return committed;
		}
		return committed.stream()
			.filter((claim) -> !databaseOnly.contains(List.of(claim.request().scope(), claim.request().key())))
			.toList();
	}

	/** Tell the listener; a listener that throws must not fail a lookup, nor a transaction that committed. */
	private static void observe(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.debug("A FastPathListener failed", ex);
		}
	}

	private boolean paused() {
		long until = this.pausedUntil.get();
		if (until == 0) {
			return false;
		}
		if (System.nanoTime() - until < 0) {
			return true;
		}
		// the pause is over: let this call probe the fast path; a failure pauses it again
		this.pausedUntil.compareAndSet(until, 0);
		return false;
	}

	private void failed(Exception error) {
		if (this.pauseNanos > 0) {
			this.pausedUntil.set(System.nanoTime() + this.pauseNanos);
		}
		if (!this.failing) {
			this.failing = true;
			logger.warn("The fast path failed ({}); records are claimed in the database, which costs speed, not "
					+ "correctness; it is tried again every {} ms", error.toString(), this.pauseNanos / 1_000_000);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("The fast path failed again", error);
		}
	}

	private void answered() {
		if (this.failing) {
			this.failing = false;
			logger.info("The fast path answers again");
		}
	}

}
