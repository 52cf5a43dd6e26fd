package dev.idempotent.autoconfigure;

import dev.idempotent.producer.ProducerSettingsCheck;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * The producer side, which needs no database: by default ({@code idempotent.producer.warn-unsafe-settings}) a startup
 * warning for producer factories that can lose or duplicate records. (The
 * {@link dev.idempotent.producer.IdempotencyKeyProducerInterceptor} on Spring Boot's producer factory, on request, is
 * each starter's: Spring Boot's customizer of its producer factory differs between generations.)
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(beforeName = { BootAutoConfigurations.KAFKA_3, BootAutoConfigurations.KAFKA_4 })
@ConditionalOnClass(DefaultKafkaProducerFactory.class)
@EnableConfigurationProperties(IdempotentProperties.class)
public class IdempotentProducerAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "idempotent.producer.warn-unsafe-settings", matchIfMissing = true)
	ProducerSettingsCheck idempotentProducerSettingsCheck(ListableBeanFactory beanFactory) {
		return new ProducerSettingsCheck(beanFactory);
	}

}
