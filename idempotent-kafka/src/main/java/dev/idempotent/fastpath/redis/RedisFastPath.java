package dev.idempotent.fastpath.redis;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.fastpath.FastPath;
import dev.idempotent.fastpath.FastPathAnswer;
import dev.idempotent.fastpath.RememberedClaim;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link FastPath} in Redis, through the application's {@link LettuceConnectionFactory} (its shared, pipelining
 * connection):
 * <ul>
 * <li>a key is stored as {@code <prefix><length of scope>:<scope>:<key>} (the scope's length keeps scope "a:b" with
 * key "c" apart from scope "a" with key "b:c"; bytes are UTF-8, so keys compare exactly as in the database);</li>
 * <li>its value holds what a hit reports: when it was processed, its payload fingerprint and its first delivery's
 * topic, partition and offset;</li>
 * <li>{@link #remember} writes it with {@code SET ... PXAT}: it expires at an instant, when the key was processed plus
 * the TTL (not counted from the write), so that Redis forgets it no later than retention removes the row, even when
 * a write that timed out here reaches Redis later (after a reconnect); a key whose TTL is already spent is not
 * written. Needs Redis 6.2 or later;</li>
 * <li>{@link #knowAll} is one {@code MGET}; every call waits at most the timeout, and a timeout, a connection
 * failure or an unreadable value is {@link FastPathAnswer.Failed} (or unknown): the database claim decides.</li>
 * </ul>
 * Thread-safe.
 *
 * @since 0.1.0
 */
public class RedisFastPath implements FastPath {

	private static final String VERSION = "v2";

	private final LettuceConnectionFactory connectionFactory;

	private final String keyPrefix;

	private final Duration ttl;

	private final long timeoutMillis;

	private final Clock clock;

	/**
	 * Create a Redis fast path.
	 * @param connectionFactory the application's Lettuce connection factory, never {@code null}
	 * @param keyPrefix prepended to every key, e.g. {@code idempotent:claims:}; never {@code null}
	 * @param ttl how long Redis keeps a key after it was processed; positive, and no longer than the retention
	 * period of the idempotency table
	 * @param timeout the longest a lookup or a write may take; positive
	 * @throws IllegalArgumentException if {@code ttl} or {@code timeout} is not positive
	 */
	public RedisFastPath(LettuceConnectionFactory connectionFactory, String keyPrefix, Duration ttl, Duration timeout) {
		this(connectionFactory, keyPrefix, ttl, timeout, Clock.systemUTC());
	}

	RedisFastPath(LettuceConnectionFactory connectionFactory, String keyPrefix, Duration ttl, Duration timeout,
			Clock clock) {
		if (ttl.isNegative() || ttl.isZero() || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("ttl and timeout must be positive");
		}
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyPrefix;
		this.ttl = ttl;
		this.timeoutMillis = timeout.toMillis();
		this.clock = clock;
	}

	@Override
	public FastPathAnswer knows(ClaimRequest request) {
		return knowAll(List.of(request)).get(0);
	}

	@Override
	public List<FastPathAnswer> knowAll(List<ClaimRequest> requests) {
		byte[][] keys = new byte[requests.size()][];
		for (int i = 0; i < keys.length; i++) {
			keys[i] = key(requests.get(i));
		}
		List<KeyValue<byte[], byte[]>> values;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			values = await(commands(connection).mget(keys));
		}
		catch (Exception ex) {
			return Collections.nCopies(requests.size(), new FastPathAnswer.Failed(ex));
		}
		List<FastPathAnswer> answers = new ArrayList<>(requests.size());
		for (KeyValue<byte[], byte[]> value : values) {
			ClaimResult.Hit hit = value.hasValue() ? decode(value.getValue()) : null;
			answers.add((hit != null) ? new FastPathAnswer.Known(hit) : FastPathAnswer.UNKNOWN);
		}
		return answers;
	}

	@Override
	public @Nullable Exception remember(List<RememberedClaim> claims) {
		Instant now = this.clock.instant();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = commands(connection);
			List<RedisFuture<String>> writes = new ArrayList<>(claims.size());
			for (RememberedClaim claim : claims) {
				Instant expiry = claim.processedAt().plus(this.ttl);
				if (expiry.isAfter(now)) {
					writes.add(commands.set(key(claim.request()), encode(claim),
							SetArgs.Builder.pxAt(expiry.toEpochMilli())));
				}
			}
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.timeoutMillis);
			try {
				for (RedisFuture<String> write : writes) {
					write.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
			}
			finally {
				// a write still queued may be dropped; one that reaches Redis later expires at its instant all the same
				writes.forEach((write) -> write.cancel(false));
			}
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return ex;
		}
		catch (Exception ex) {
			return ex;
		}
	}

	private static RedisClusterAsyncCommands<byte[], byte[]> commands(RedisConnection connection) {
		return ((LettuceConnection) connection).getNativeConnection();
	}

	private <T> T await(RedisFuture<T> future) throws InterruptedException, ExecutionException, TimeoutException {
		try {
			return future.get(this.timeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw ex;
		}
	}

	/** The Redis key of a claim: the prefix, the scope's length, the scope and the key. */
	byte[] key(ClaimRequest request) {
		return (this.keyPrefix + request.scope().length() + ":" + request.scope() + ":" + request.key())
			.getBytes(StandardCharsets.UTF_8);
	}

	/** {@code v2;<processed at, epoch ms>;<fingerprint or empty>;<partition>;<offset>;<topic>}, or without the source. */
	static byte[] encode(RememberedClaim claim) {
		StringBuilder value = new StringBuilder(VERSION).append(';').append(claim.processedAt().toEpochMilli()).append(';');
		String fingerprint = claim.request().fingerprint();
		value.append((fingerprint != null) ? fingerprint : "");
		DeliverySource source = claim.request().source();
		if (source != null) {
			value.append(';').append(source.partition()).append(';').append(source.offset()).append(';')
				.append(source.topic());
		}
		return value.toString().getBytes(StandardCharsets.UTF_8);
	}

	/** The hit a stored value stands for, or {@code null} if it cannot be read (then the database decides). */
	static ClaimResult.@Nullable Hit decode(byte[] stored) {
		String[] parts = new String(stored, StandardCharsets.UTF_8).split(";", 6);
		if (parts.length < 3 || !VERSION.equals(parts[0])) {
			return null;
		}
		try {
			Instant processedAt = Instant.ofEpochMilli(Long.parseLong(parts[1]));
			String fingerprint = parts[2].isEmpty() ? null : parts[2];
			DeliverySource source = (parts.length == 6)
					? new DeliverySource(parts[5], Integer.parseInt(parts[3]), Long.parseLong(parts[4])) : null;
			return new ClaimResult.Hit(ClaimStatus.SUCCEEDED, processedAt, fingerprint, source);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}
