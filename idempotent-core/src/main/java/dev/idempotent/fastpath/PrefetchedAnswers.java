package dev.idempotent.fastpath;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import org.jspecify.annotations.Nullable;

/**
 * The fast path's answers for the keys of one prefetch (the rest of a poll, for a record listener), kept on the
 * thread that will claim them one by one. Each answer is used at most once and for at most a minute: an answer is
 * what the fast path knew when it was asked, and a "known" stays true (keys are written only after their commit);
 * an "unknown" only sends a key to the database claim, which decides. Not thread-safe: one thread's.
 */
final class PrefetchedAnswers {

	/** How long answers are used after they were fetched; later, the keys are asked again. */
	static final long MAX_AGE_NANOS = 60_000_000_000L;

	/** The answer "not known" (a {@code null} value would be indistinguishable from "not prefetched"). */
	private static final Object NOT_KNOWN = new Object();

	private final Map<String, Object> answers;

	private final long fetchedAt;

	private PrefetchedAnswers(Map<String, Object> answers, long fetchedAt) {
		this.answers = answers;
		this.fetchedAt = fetchedAt;
	}

	/**
	 * Keep the answers of a lookup; failed answers are not kept (those keys are asked again, or bypassed while the
	 * fast path is paused).
	 */
	static PrefetchedAnswers of(List<ClaimRequest> requests, List<FastPathAnswer> answers, long fetchedAt) {
		Map<String, Object> kept = new HashMap<>(requests.size() * 2);
		for (int i = 0; i < requests.size(); i++) {
			FastPathAnswer answer = answers.get(i);
			if (answer instanceof FastPathAnswer.Known known) {
				kept.put(id(requests.get(i)), known.hit());
			}
			else if (answer instanceof FastPathAnswer.Unknown) {
				kept.putIfAbsent(id(requests.get(i)), NOT_KNOWN);
			}
		}
		return new PrefetchedAnswers(kept, fetchedAt);
	}

	/** Whether the answers are too old to use at {@code now} ({@link System#nanoTime}). */
	boolean expired(long now) {
		return now - this.fetchedAt > MAX_AGE_NANOS;
	}

	/**
	 * Take the answer for a request's key, once.
	 * @return {@code null} if the key was not prefetched (ask the fast path), else the answer: a hit, or
	 * {@link Answer#NOT_KNOWN_ANSWER}
	 */
	@Nullable Answer take(ClaimRequest request) {
		Object answer = this.answers.remove(id(request));
		if (answer == null) {
			return null;
		}
		return (answer == NOT_KNOWN) ? Answer.NOT_KNOWN_ANSWER : new Answer((ClaimResult.Hit) answer);
	}

	/** The scope and key, unambiguously (the scope's length first). */
	private static String id(ClaimRequest request) {
		return request.scope().length() + ":" + request.scope() + ":" + request.key();
	}

	/**
	 * A prefetched answer.
	 *
	 * @param hit the hit when the key was known, else {@code null}
	 */
	record Answer(ClaimResult.@Nullable Hit hit) {

		static final Answer NOT_KNOWN_ANSWER = new Answer(null);

	}

}
