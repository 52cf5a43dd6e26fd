package dev.idempotent.fastpath.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.ClaimResult;
import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.claim.DeliverySource;
import dev.idempotent.fastpath.FastPathAnswer;
import dev.idempotent.fastpath.RememberedClaim;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedisFastPath} on a private {@code redis-server}: what a known key answers, keys that cannot collide, the
 * TTL counted from when the key was processed, and an unreachable server answering "failed" within the timeout.
 */
class RedisFastPathTest {

	/** The time the fast path is told: Redis expires keys at instants, on its own clock. */
	private static final Instant NOW = Instant.now();

	private static RedisProcess redis;

	private static LettuceConnectionFactory factory;

	private final RedisFastPath fastPath = new RedisFastPath(factory, "test:", Duration.ofHours(1), Duration.ofMillis(200),
			Clock.fixed(NOW, ZoneOffset.UTC));

	@BeforeAll
	static void start() throws Exception {
		redis = RedisProcess.start();
		factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		factory.afterPropertiesSet();
		factory.start();
	}

	@AfterAll
	static void stop() {
		factory.destroy();
		redis.close();
	}

	@Test
	void aRememberedKeyIsKnownWithItsFirstDelivery() {
		ClaimRequest first = new ClaimRequest("orders", "known-1", new DeliverySource("orders.v1", 3, 42), "f00d");
		assertThat(this.fastPath.remember(List.of(new RememberedClaim(first, NOW.minusSeconds(5))))).isNull();

		List<FastPathAnswer> answers = this.fastPath.knowAll(List.of(new ClaimRequest("orders", "known-1", null),
				new ClaimRequest("orders", "unknown-1", null)));

		assertThat(answers).containsExactly(new FastPathAnswer.Known(new ClaimResult.Hit(ClaimStatus.SUCCEEDED,
				Instant.ofEpochMilli(NOW.minusSeconds(5).toEpochMilli()), "f00d", new DeliverySource("orders.v1", 3, 42))),
				FastPathAnswer.UNKNOWN);
	}

	@Test
	void scopesAndKeysThatJoinToTheSameTextDoNotCollide() {
		this.fastPath.remember(List.of(new RememberedClaim(new ClaimRequest("a:b", "c", null), NOW)));

		assertThat(this.fastPath.knows(new ClaimRequest("a", "b:c", null))).isEqualTo(FastPathAnswer.UNKNOWN);
		assertThat(this.fastPath.knows(new ClaimRequest("a:b", "c", null))).isInstanceOf(FastPathAnswer.Known.class);
	}

	@Test
	void theTtlCountsFromWhenTheKeyWasProcessed() throws Exception {
		this.fastPath.remember(List.of(new RememberedClaim(new ClaimRequest("ttl", "recent", null), NOW.minusSeconds(600)),
				new RememberedClaim(new ClaimRequest("ttl", "expired", null), NOW.minusSeconds(3601))));

		long ttl = Long.parseLong(redis.command("PTTL test:3:ttl:recent").substring(1));
		assertThat(ttl).isBetween(Duration.ofMinutes(49).toMillis(), Duration.ofMinutes(50).toMillis());
		assertThat(this.fastPath.knows(new ClaimRequest("ttl", "expired", null))).as("older than the TTL: not written")
			.isEqualTo(FastPathAnswer.UNKNOWN);
	}

	@Test
	void aWriteThatReachesRedisAfterItsTtlDoesNotOutliveIt() throws Exception {
		RedisFastPath shortLived = new RedisFastPath(factory, "test:", Duration.ofSeconds(2), Duration.ofMillis(200));
		ClaimRequest request = new ClaimRequest("late", "write-1", null);
		assertThat(shortLived.knows(request)).as("connected before the server stops answering")
			.isEqualTo(FastPathAnswer.UNKNOWN);
		Instant processed = Instant.now();
		redis.suspend();
		try {
			assertThat(shortLived.remember(List.of(new RememberedClaim(request, processed))))
				.as("the write timed out here").isNotNull();
			await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(processed.plusSeconds(3)));
		}
		finally {
			redis.resume();
		}

		// the write queued on the shared connection reaches Redis now, before this lookup
		assertThat(shortLived.knows(request)).isEqualTo(FastPathAnswer.UNKNOWN);
		assertThat(redis.command("EXISTS test:4:late:write-1")).isEqualTo(":0");
	}

	@Test
	void anUnreachableServerFailsWithinTheTimeout() throws Exception {
		this.fastPath.remember(List.of(new RememberedClaim(new ClaimRequest("down", "k", null), NOW)));
		redis.suspend();
		try {
			long start = System.nanoTime();
			FastPathAnswer answer = this.fastPath.knows(new ClaimRequest("down", "k", null));
			long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

			assertThat(answer).isInstanceOf(FastPathAnswer.Failed.class);
			assertThat(elapsedMillis).isLessThan(2_000);
			assertThat(this.fastPath.remember(List.of(new RememberedClaim(new ClaimRequest("down", "j", null), NOW))))
				.isNotNull();
		}
		finally {
			redis.resume();
		}
	}

	@Test
	void anUnreadableValueIsUnknown() throws Exception {
		redis.command("SET test:7:garbled:k nonsense");

		assertThat(this.fastPath.knows(new ClaimRequest("garbled", "k", null))).isEqualTo(FastPathAnswer.UNKNOWN);
	}

}
