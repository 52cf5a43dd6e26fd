package dev.idempotent.autoconfigure;

import java.time.Clock;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.output.OutputSettings;
import dev.idempotent.capture.ProducerCaptureInstaller;
import dev.idempotent.capture.Replies;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.output.JdbcOutputStore;
import dev.idempotent.output.OutputStore;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;

/**
 * Outputs of claims ({@code idempotent.outputs.*}): every {@code DefaultKafkaProducerFactory} bean captures what an
 * {@code @IdempotentListener} method sends under its claim ({@link ProducerCaptureInstaller}), the
 * {@link JdbcOutputStore} keeps it in the output table, and {@link ClaimOutputs} stores, awaits and replays it for
 * the listener advice. The capture is installed even with {@code idempotent.outputs.enabled=false}, to warn once per
 * listener that sends. The output table is created and checked with the idempotency table (see
 * {@link IdempotentAutoConfiguration}).
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class)
@ConditionalOnClass({ KafkaTemplate.class, JdbcTemplate.class })
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties({ IdempotentProperties.class, IdempotentOutputsProperties.class })
public class IdempotentOutputsAutoConfiguration {

	@Bean
	static ProducerCaptureInstaller idempotentProducerCaptureInstaller(Environment environment) {
		IdempotentOutputsProperties outputs = Binder.get(environment)
			.bind("idempotent.outputs", IdempotentOutputsProperties.class)
			.orElseGet(IdempotentOutputsProperties::new);
		return new ProducerCaptureInstaller(maxBytes(outputs));
	}

	@Bean
	@ConditionalOnMissingBean
	OutputStore idempotentOutputStore(DataSource dataSource, SqlDialect dialect, IdempotentProperties properties,
			IdempotentOutputsProperties outputs) {
		return new JdbcOutputStore(dataSource, outputs.table(new TableName(properties.getTableName())), dialect,
				Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	@SuppressWarnings("unchecked")
	ClaimOutputs idempotentClaimOutputs(OutputStore store, IdempotentProperties properties,
			IdempotentOutputsProperties outputs, ObjectProvider<ProducerFactory<Object, Object>> factories,
			ProducerCaptureInstaller installer, ObjectProvider<OutputMeters> meters) {
		OutputSettings settings = new OutputSettings(outputs.isEnabled(), maxBytes(outputs), outputs.getMaxCount(),
				outputs.getAckTimeout(), properties.getKeyHeader(), outputs.getReplayBuffer().toBytes());
		ClaimOutputs claimOutputs = new ClaimOutputs(store, settings, replayFactory(factories, installer),
				(name) -> (ProducerFactory<Object, Object>) installer.named(name),
				meters.getIfAvailable(() -> OutputMeters.NONE));
		claimOutputs.setShadow(properties.isShadow());
		return claimOutputs;
	}

	@Bean
	@ConditionalOnMissingBean
	Replies idempotentReplies(ObjectProvider<ProducerCaptureInstaller> installer, IdempotentProperties properties,
			IdempotentOutputsProperties outputs) {
		return new Replies(installer::getObject, properties.getKeyHeader(), outputs.getAckTimeout());
	}

	/**
	 * The factory that sends stored outputs again when they do not name the factory that sent them (or it is gone): the
	 * application's only (or primary) producer factory if it captures, else the first that does. Its Kafka
	 * transaction, when the container's is active on it, is joined.
	 */
	@SuppressWarnings("unchecked")
	private static Supplier<ProducerFactory<Object, Object>> replayFactory(
			ObjectProvider<ProducerFactory<Object, Object>> factories, ProducerCaptureInstaller installer) {
		return () -> {
			ProducerFactory<Object, Object> unique = factories.getIfUnique();
			if (unique != null && installer.captures(unique)) {
				return unique;
			}
			ProducerFactory<?, ?> first = installer.first();
			if (first == null) {
				throw new IllegalStateException("Stored outputs cannot be sent again: no DefaultKafkaProducerFactory bean"
						+ " captures outputs");
			}
			return (ProducerFactory<Object, Object>) first;
		};
	}

	private static int maxBytes(IdempotentOutputsProperties outputs) {
		return (int) Math.min(Integer.MAX_VALUE, outputs.getMaxBytes().toBytes());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class OutputMetersConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(MeterRegistry.class)
		OutputMeters idempotentOutputMeters(MeterRegistry registry) {
			return new OutputMeters(registry);
		}

	}

}
