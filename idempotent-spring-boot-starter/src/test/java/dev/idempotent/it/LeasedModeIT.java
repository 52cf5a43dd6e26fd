package dev.idempotent.it;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.claim.LeaseResult;
import dev.idempotent.jdbc.JdbcLeasedClaimStore;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * LEASED mode on a real broker and MariaDB with a fake remote gateway that counts calls per idempotency key:
 * duplicates call it once; a failed call is retried under the same key; a live lease held elsewhere is waited
 * for, not treated as a hit; a consumer killed while holding a lease is taken over after the lease expires, and
 * the gateway sees the same key again (at least once, never with another key).
 */
@SpringBootTest(classes = { ItApplication.class, LeasedModeIT.Listeners.class },
		properties = { "it.topic=" + LeasedModeIT.TOPIC, "it.lease=2s", "idempotent.retry.transient-max-interval=500ms" })
@EmbeddedKafka(partitions = 1, topics = { LeasedModeIT.TOPIC, LeasedModeIT.TOPIC + ".DLT", LeasedModeIT.CRASH_TOPIC })
class LeasedModeIT {

	static final String TOPIC = "leased.sms";

	static final String CRASH_TOPIC = "leased.crash";

	static final String GROUP = UUID.randomUUID().toString().substring(0, 8) + "-leased";

	@Autowired
	RemoteCalls remote;

	@Autowired
	MeterRegistry meters;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	TransactionTemplate transactions;

	@DynamicPropertySource
	static void group(DynamicPropertyRegistry registry) {
		registry.add("it.group", () -> GROUP);
	}

	@Test
	void duplicatesCallTheGatewayOnceAndAFailedCallIsRetriedUnderTheSameKey() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, "sms-1", "hello");
			kafka.send(TOPIC, "sms-1", "hello");
			kafka.send(TOPIC, "sms-2", "fail-once");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}
		assertThat(this.remote.calls(GROUP, "sms-1")).isOne();
		assertThat(this.remote.calls(GROUP, "sms-2")).as("at least once, same key").isEqualTo(2);
		assertThat(row("sms-1")).containsExactly(1, 1);
		assertThat(row("sms-2")).as("SUCCEEDED on the second attempt").containsExactly(1, 2);
	}

	@Test
	void aLiveLeaseHeldByAnotherConsumerIsWaitedForThenTakenOver() throws Exception {
		JdbcLeasedClaimStore otherConsumer = new JdbcLeasedClaimStore(this.jdbc.getDataSource(), new TableName(TableName.DEFAULT),
				SqlDialect.MARIADB, Clock.systemUTC());
		LeaseResult held = this.transactions
			.execute((status) -> otherConsumer.claimLease(new ClaimRequest(GROUP, "sms-held", null), Duration.ofSeconds(3)));
		assertThat(held).isInstanceOf(LeaseResult.Acquired.class);
		double hitsBefore = hits();
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, "sms-held", "hello");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}
		assertThat(this.remote.calls(GROUP, "sms-held")).isOne();
		assertThat(row("sms-held")).as("taken over: attempt 2").containsExactly(1, 2);
		assertThat(hits()).as("in progress is not a hit").isEqualTo(hitsBefore);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			assertThat(kafka.lag(GROUP + "-none", TOPIC + ".DLT")).as("nothing dead-lettered").isZero();
		}
	}

	@Test
	void aConsumerKilledWhileHoldingALeaseIsTakenOverAfterItExpires() throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-lease-crash";
		List<String> keys = List.of(group + "-sms-0", group + "-sms-1", group + "-sms-2");
		String victim = keys.get(1);
		List<String> leased = List.of("--it.mode=leased", "--it.lease=3s");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(CRASH_TOPIC, keys);
			try (ChildConsumer first = ChildConsumer.start("lease-1", kafka.bootstrapServers(), CRASH_TOPIC, group,
					arguments(leased, "--crash.in-lease-of=" + victim))) {
				first.awaitLine("CRASH-POINT in-lease " + victim);
				first.kill();
			}
			assertThat(row(group, victim)).as("PROCESSING under a lease").containsExactly(0, 1);
			try (ChildConsumer second = ChildConsumer.start("lease-2", kafka.bootstrapServers(), CRASH_TOPIC, group,
					arguments(leased))) {
				await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, CRASH_TOPIC) == 0);
			}
		}
		assertThat(this.remote.calls(group, victim)).as("called again, with the same key").isEqualTo(2);
		assertThat(row(group, victim)).containsExactly(1, 2);
		assertThat(this.remote.calls(group, keys.get(0))).isOne();
		assertThat(this.remote.calls(group, keys.get(2))).isOne();
	}

	private static String[] arguments(List<String> first, String... more) {
		List<String> all = new java.util.ArrayList<>(first);
		all.addAll(List.of(more));
		all.addAll(ItDatabase.MARIADB.arguments());
		return all.toArray(String[]::new);
	}

	private double hits() {
		return this.meters.counter(MicrometerClaimListener.CLAIMS, "scope", GROUP, "outcome", MicrometerClaimListener.HIT)
			.count();
	}

	private List<Integer> row(String key) {
		return row(GROUP, key);
	}

	private List<Integer> row(String scope, String key) {
		return this.jdbc.queryForObject("SELECT status, attempts FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?",
				(rs, n) -> List.of(rs.getInt(1), rs.getInt(2)), scope, key);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		RemoteCalls remoteCalls(JdbcTemplate jdbc) {
			return new RemoteCalls(jdbc);
		}

		@Bean
		LeasedGatewayListener leasedGatewayListener(RemoteCalls remote) {
			return new LeasedGatewayListener(remote, GROUP, "");
		}

	}

}
