package dev.idempotent.boot3;

import dev.idempotent.autoconfigure.ConditionalOnIdempotentEnabled;
import dev.idempotent.autoconfigure.IdempotentProperties;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * On request ({@code idempotent.producer.add-key-header=true}), the
 * {@link dev.idempotent.producer.IdempotencyKeyProducerInterceptor} on Spring Boot 3's producer factory.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(before = KafkaAutoConfiguration.class)
@ConditionalOnClass(DefaultKafkaProducerFactory.class)
@EnableConfigurationProperties(IdempotentProperties.class)
public class IdempotentKeyHeaderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty("idempotent.producer.add-key-header")
	KeyHeaderProducerFactoryCustomizer idempotentKeyHeaderProducerFactoryCustomizer(IdempotentProperties properties) {
		return new KeyHeaderProducerFactoryCustomizer(properties.getKeyHeader());
	}

}
