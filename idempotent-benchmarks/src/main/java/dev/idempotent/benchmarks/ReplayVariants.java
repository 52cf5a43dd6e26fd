package dev.idempotent.benchmarks;

import java.util.List;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * The replay variants: every record of the data set was processed before (by a seed run, not measured, in batches
 * of 500 under the same scope in consumer group {@code <group>-seed}), and a new consumer group reads the topic
 * again with a single-record {@code @IdempotentListener} in scope {@code bench.scope}: every record is a hit.
 * Once with the database claim alone, once with the Redis fast path (on 127.0.0.1:{@code bench.redis-port}, keys
 * under a prefix of the run: nothing is flushed). Ledger rows carry {@code bench.group} in both runs, so a record
 * the replay processed again shows as a duplicate.
 */
final class ReplayVariants {

	private ReplayVariants() {
	}

	/** Whether a variant replays a data set processed before. */
	static boolean replays(Variant variant) {
		return variant.configuration == DatabaseReplay.class || variant.configuration == FastPathReplay.class;
	}

	/** Whether a variant uses the Redis fast path (its seed too). */
	static boolean fastPath(Variant variant) {
		return variant.configuration == FastPathReplay.class;
	}

	/** The seed run: the data set processed in batches of 500, under the replay's scope. */
	@Configuration(proxyBeanMethods = false)
	@Import(RedisFastPath.class)
	static class Seed {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> seedFactory(
				ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumers) {
			return Variants.batchFactory(configurer, consumers);
		}

		@Bean
		Listener seedListener(BenchLedger ledger) {
			return new Listener(ledger);
		}

		static class Listener {

			private final BenchLedger ledger;

			Listener(BenchLedger ledger) {
				this.ledger = ledger;
			}

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}-seed", containerFactory = "seedFactory",
					properties = "max.poll.records=500")
			@IdempotentListener(scope = "${bench.scope}")
			public void on(List<ConsumerRecord<String, String>> records) {
				this.ledger.creditAll(records.stream().map((record) -> new String[] { key(record), record.value() }).toList());
			}

		}

	}

	/** 7a. The replay, claimed in the database. */
	@Configuration(proxyBeanMethods = false)
	static class DatabaseReplay {

		@Bean
		ReplayListener replayListener(BenchLedger ledger) {
			return new ReplayListener(ledger);
		}

	}

	/** 7b. The replay with the Redis fast path. */
	@Configuration(proxyBeanMethods = false)
	@Import(RedisFastPath.class)
	static class FastPathReplay {

		@Bean
		ReplayListener replayListener(BenchLedger ledger) {
			return new ReplayListener(ledger);
		}

	}

	/** The connection factory of the fast path, when {@code idempotent.fast-path.redis.enabled=true}. */
	@Configuration(proxyBeanMethods = false)
	static class RedisFastPath {

		@Bean
		LettuceConnectionFactory redisConnectionFactory(@Value("${bench.redis-port:6379}") int port) {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		}

	}

	/** A single-record listener in the seed's scope. */
	static class ReplayListener {

		private final BenchLedger ledger;

		ReplayListener(BenchLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
		@IdempotentListener(scope = "${bench.scope}")
		public void on(ConsumerRecord<String, String> record) {
			this.ledger.credit(key(record), record.value());
		}

	}

	private static String key(ConsumerRecord<String, String> record) {
		return new String(record.headers().lastHeader("idempotency-key").value(), java.nio.charset.StandardCharsets.UTF_8);
	}

}
