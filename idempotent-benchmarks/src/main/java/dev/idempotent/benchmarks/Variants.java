package dev.idempotent.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.idempotent.benchmarks.layout.ClaimLayout;
import dev.idempotent.benchmarks.layout.LayoutClaims;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.IdempotentListener;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.handler.advice.IdempotentReceiverInterceptor;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.integration.channel.NullChannel;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.messaging.MessageHandler;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The variants, each a listener configuration doing the same business write ({@link BenchLedger}). Keys come
 * from the {@code idempotency-key} header everywhere.
 */
final class Variants {

	/** A container factory of batch listeners configured as Boot configures the default one. */
	static ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
			ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumers) {
		ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
		configurer.configure(factory, consumers);
		factory.setBatchListener(true);
		return factory;
	}

	private Variants() {
	}

	private static String key(ConsumerRecord<String, String> record) {
		return new String(record.headers().lastHeader("idempotency-key").value(), java.nio.charset.StandardCharsets.UTF_8);
	}

	/** 1. A plain listener with no deduplication: the ceiling. */
	@Configuration(proxyBeanMethods = false)
	static class Plain {

		@Bean
		Listener plainListener(BenchLedger ledger, TransactionTemplate transactions, Deliveries deliveries) {
			return new Listener(ledger, transactions, deliveries);
		}

		record Listener(BenchLedger ledger, TransactionTemplate transactions, Deliveries deliveries) {

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
			public void on(ConsumerRecord<String, String> record) {
				this.transactions.executeWithoutResult((status) -> this.ledger.credit(key(record), record.value()));
				this.deliveries.delivered(1);
			}

		}

	}

	/**
	 * 1b. A plain batch listener with the same batch business write as 3 ({@link BenchLedger#creditAll}), in one
	 * transaction per poll, no deduplication: the ceiling for batches.
	 */
	@Configuration(proxyBeanMethods = false)
	static class PlainBatch {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
				ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumers) {
			return Variants.batchFactory(configurer, consumers);
		}

		@Bean
		Listener plainBatchListener(BenchLedger ledger, TransactionTemplate transactions, Deliveries deliveries) {
			return new Listener(ledger, transactions, deliveries);
		}

		record Listener(BenchLedger ledger, TransactionTemplate transactions, Deliveries deliveries) {

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}", containerFactory = "batchFactory",
					properties = "max.poll.records=${bench.batch-size}")
			public void on(List<ConsumerRecord<String, String>> records) {
				this.transactions.executeWithoutResult((status) -> this.ledger
					.creditAll(records.stream().map((record) -> new String[] { key(record), record.value() }).toList()));
				this.deliveries.delivered(records.size());
			}

		}

	}

	/**
	 * 1c. A plain batch listener that writes each record of the poll as the single-record listener does (two
	 * INSERTs, unbatched), all in one transaction per poll, no deduplication: the ceiling of group commit, which runs
	 * the unchanged single-record listener once per record inside one transaction per group.
	 * <p>1d ({@code bench.hand-claim=true}): the same with a claim written by hand, the least group commit must do in
	 * the same harness: per poll, the least claim INSERT of the poll's keys into the library's idempotency table
	 * ({@link LayoutClaims}, shipped layout), returning the keys it inserted; only the records whose key it inserted are
	 * written, once each, in the same transaction. No read, no FAILED rows, no error isolation, no metrics: a floor, not
	 * a design.
	 */
	@Configuration(proxyBeanMethods = false)
	static class PlainBatchRecordByRecord {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
				ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumers) {
			return Variants.batchFactory(configurer, consumers);
		}

		@Bean
		Listener plainBatchRecordByRecordListener(BenchLedger ledger, TransactionTemplate transactions,
				JdbcTemplate jdbc, Deliveries deliveries, @Value("${bench.group}") String scope,
				@Value("${bench.hand-claim:false}") boolean handClaim) {
			LayoutClaims claims = handClaim ? new LayoutClaims(ClaimLayout.TEXT, new TableName(Benchmark.CLAIM_TABLE),
					BenchLedger.postgres(jdbc)) : null;
			return new Listener(ledger, transactions, jdbc, deliveries, scope, claims);
		}

		record Listener(BenchLedger ledger, TransactionTemplate transactions, JdbcTemplate jdbc, Deliveries deliveries,
				String scope, @Nullable LayoutClaims claims) {

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}", containerFactory = "batchFactory",
					properties = "max.poll.records=${bench.batch-size}")
			public void on(List<ConsumerRecord<String, String>> records) {
				this.transactions.executeWithoutResult((status) -> {
					Set<String> inserted = (this.claims != null) ? claim(this.claims, records) : null;
					for (ConsumerRecord<String, String> record : records) {
						if (inserted == null || inserted.remove(key(record))) {
							this.ledger.credit(key(record), record.value());
						}
					}
				});
				this.deliveries.delivered(records.size());
			}

			/** The keys of the records whose claim this poll inserted, on the transaction's connection. */
			private Set<String> claim(LayoutClaims claims, List<ConsumerRecord<String, String>> records) {
				List<String> keys = records.stream().map(Variants::key).toList();
				return Objects.requireNonNull(this.jdbc.execute((Connection connection) -> {
					try (PreparedStatement insert = claims.prepareInsert(connection, keys.size(), false, true)) {
						return claims.insertedKeys(insert, this.scope, keys, false);
					}
				}));
			}

		}

	}

	/** 2. {@code @IdempotentListener}, one record per transaction (2b: with group commit). */
	@Configuration(proxyBeanMethods = false)
	static class Idempotent {

		@Bean
		Listener idempotentListener(BenchLedger ledger) {
			return new Listener(ledger);
		}

		static class Listener {

			private final BenchLedger ledger;

			Listener(BenchLedger ledger) {
				this.ledger = ledger;
			}

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
			@IdempotentListener
			public void on(ConsumerRecord<String, String> record) {
				this.ledger.credit(key(record), record.value());
			}

		}

	}

	/**
	 * 2e/2f. {@code @IdempotentListener}, single records, the business write of 2 and one output per record sent with
	 * the application's {@code KafkaTemplate} to {@code <topic>-out} (consume, process, produce).
	 */
	@Configuration(proxyBeanMethods = false)
	static class IdempotentOutput {

		@Bean
		Listener idempotentOutputListener(BenchLedger ledger, KafkaTemplate<String, String> template) {
			return new Listener(ledger, template);
		}

		static class Listener {

			private final BenchLedger ledger;

			private final KafkaTemplate<String, String> template;

			Listener(BenchLedger ledger, KafkaTemplate<String, String> template) {
				this.ledger = ledger;
				this.template = template;
			}

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
			@IdempotentListener
			public void on(ConsumerRecord<String, String> record) {
				this.ledger.credit(key(record), record.value());
				this.template.send(record.topic() + "-out", record.key(), record.value());
			}

		}

	}

	/** 3. {@code @IdempotentListener} on a batch listener, {@code bench.batch-size} records per poll. */
	@Configuration(proxyBeanMethods = false)
	static class IdempotentBatch {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
				ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumers) {
			return Variants.batchFactory(configurer, consumers);
		}

		@Bean
		Listener idempotentBatchListener(BenchLedger ledger) {
			return new Listener(ledger);
		}

		static class Listener {

			private final BenchLedger ledger;

			Listener(BenchLedger ledger) {
				this.ledger = ledger;
			}

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}", containerFactory = "batchFactory",
					properties = "max.poll.records=${bench.batch-size}")
			@IdempotentListener
			public void on(List<ConsumerRecord<String, String>> records) {
				this.ledger.creditAll(records.stream().map((record) -> new String[] { key(record), record.value() }).toList());
			}

		}

	}

	/** 4. The naive check: SELECT, then INSERT if absent, in the business transaction. */
	@Configuration(proxyBeanMethods = false)
	static class SelectThenInsert {

		@Bean
		Listener selectThenInsertListener(BenchLedger ledger, TransactionTemplate transactions, JdbcTemplate jdbc,
				Deliveries deliveries, Timer checkTimer, @Value("${bench.group}") String variant) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS bench_seen (variant VARCHAR(64) NOT NULL, idem_key VARCHAR(128)"
					+ " NOT NULL)");
			if (BenchLedger.postgres(jdbc)) {
				jdbc.execute("CREATE INDEX IF NOT EXISTS idx_bench_seen ON bench_seen (variant, idem_key)");
			}
			else if (jdbc.queryForList("SHOW INDEX FROM bench_seen").isEmpty()) {
				jdbc.execute("CREATE INDEX idx_bench_seen ON bench_seen (variant, idem_key)");
			}
			return new Listener(ledger, transactions, jdbc, deliveries, checkTimer, variant);
		}

		record Listener(BenchLedger ledger, TransactionTemplate transactions, JdbcTemplate jdbc, Deliveries deliveries,
				Timer check, String variant) {

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
			public void on(ConsumerRecord<String, String> record) {
				String key = key(record);
				this.transactions.executeWithoutResult((status) -> {
					long start = System.nanoTime();
					Integer seen = this.jdbc.queryForObject(
							"SELECT COUNT(*) FROM bench_seen WHERE variant = ? AND idem_key = ?", Integer.class,
							this.variant, key);
					if (seen == null || seen == 0) {
						this.jdbc.update("INSERT INTO bench_seen (variant, idem_key) VALUES (?, ?)", this.variant, key);
						this.check.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
						this.ledger.credit(key, record.value());
					}
					else {
						this.check.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
					}
				});
				this.deliveries.delivered(1);
			}

		}

	}

	/** The Spring Integration metadata store's table prefix: its table is the benchmark's own. */
	static final String METADATA_TABLE_PREFIX = "BENCH_INT_";

	static final String METADATA_TABLE = METADATA_TABLE_PREFIX + "METADATA_STORE";

	/**
	 * 5. Spring Integration's {@code IdempotentReceiverInterceptor} with a {@code MetadataStoreSelector} on a
	 * {@code JdbcMetadataStore} in the same database, around a handler doing the business write in its own
	 * transaction, as a Spring Integration user would wire it.
	 */
	@Configuration(proxyBeanMethods = false)
	static class SpringIntegration {

		@Bean
		Listener springIntegrationListener(BenchLedger ledger, TransactionTemplate transactions, JdbcTemplate jdbc,
				Deliveries deliveries, Timer checkTimer, @Value("${bench.group}") String region) throws Exception {
			jdbc.execute("CREATE TABLE IF NOT EXISTS " + METADATA_TABLE + " (METADATA_KEY VARCHAR(255) NOT NULL,"
					+ " METADATA_VALUE VARCHAR(4000), REGION VARCHAR(100) NOT NULL,"
					+ " CONSTRAINT " + METADATA_TABLE + "_PK PRIMARY KEY (METADATA_KEY, REGION))");
			JdbcMetadataStore store = new JdbcMetadataStore(jdbc);
			store.setTablePrefix(METADATA_TABLE_PREFIX);
			store.setRegion(region);
			store.afterPropertiesSet();
			MetadataStoreSelector selector = new MetadataStoreSelector(
					(message) -> (String) message.getHeaders().get("idempotency-key"), store);
			IdempotentReceiverInterceptor interceptor = new IdempotentReceiverInterceptor((message) -> {
				long start = System.nanoTime();
				boolean accepted = selector.accept(message);
				checkTimer.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
				return accepted;
			});
			interceptor.setDiscardChannel(new NullChannel());
			MessageHandler handler = (message) -> transactions.executeWithoutResult((status) -> ledger
				.credit((String) message.getHeaders().get("idempotency-key"), (String) message.getPayload()));
			ProxyFactory proxy = new ProxyFactory(handler);
			proxy.addAdvice(interceptor);
			return new Listener((MessageHandler) proxy.getProxy(), deliveries);
		}

		record Listener(MessageHandler handler, Deliveries deliveries) {

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
			public void on(ConsumerRecord<String, String> record) {
				this.handler.handleMessage(
						MessageBuilder.withPayload(record.value()).setHeader("idempotency-key", key(record)).build());
				this.deliveries.delivered(1);
			}

		}

	}

	/** 6. A Redis {@code SET key NX EX 86400} before the database write. */
	@Configuration(proxyBeanMethods = false)
	static class Redis {

		@Bean(destroyMethod = "shutdown")
		RedisClient redisClient(@Value("${bench.redis-uri:redis://127.0.0.1:6379}") String uri) {
			return RedisClient.create(uri);
		}

		@Bean(destroyMethod = "close")
		StatefulRedisConnection<String, String> redisConnection(RedisClient client) {
			return client.connect();
		}

		@Bean
		Listener redisListener(BenchLedger ledger, TransactionTemplate transactions,
				StatefulRedisConnection<String, String> redis, Deliveries deliveries, Timer checkTimer,
				@Value("${bench.group}") String prefix) {
			return new Listener(ledger, transactions, redis, deliveries, checkTimer, prefix);
		}

		record Listener(BenchLedger ledger, TransactionTemplate transactions, StatefulRedisConnection<String, String> redis,
				Deliveries deliveries, Timer check, String prefix) {

			@KafkaListener(topics = "${bench.topic}", groupId = "${bench.group}")
			public void on(ConsumerRecord<String, String> record) {
				String key = key(record);
				long start = System.nanoTime();
				String set = this.redis.sync().set(this.prefix + ":" + key, "1", SetArgs.Builder.nx().ex(86_400));
				this.check.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
				if ("OK".equals(set)) {
					this.transactions.executeWithoutResult((status) -> this.ledger.credit(key, record.value()));
				}
				this.deliveries.delivered(1);
			}

		}

	}

}
