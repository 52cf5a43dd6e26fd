package dev.idempotent.autoconfigure;

import java.util.Map;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.config.ShareKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.listener.ShareKafkaMessageListenerContainer;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka share groups (KIP-932, spring-kafka's share container factory): an {@code @IdempotentListener} on one is
 * refused at startup, saying why; share listeners without the annotation run as before.
 */
class ShareGroupListenerTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE, DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:share;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9", "idempotent.jdbc.initialize-schema=always");

	@Test
	void anIdempotentListenerOnAShareGroupFactoryIsRefusedAtStartup() {
		this.runner.withUserConfiguration(ShareFactory.class, IdempotentShareListener.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Container factory 'shareFactory' runs Kafka share-group consumers (KIP-932),"
						+ " which the starter does not support")
				.hasMessageContaining("onOrder")
				.hasMessageContaining("Run this listener on a consumer-group factory"));
	}

	@Test
	void aShareListenerWithoutTheAnnotationIsLeftAlone() {
		this.runner.withUserConfiguration(ShareFactory.class, PlainShareListener.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(KafkaListenerEndpointRegistry.class).getListenerContainer("plain-share"))
				.isInstanceOf(ShareKafkaMessageListenerContainer.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ShareFactory {

		@Bean
		ShareKafkaListenerContainerFactory<String, String> shareFactory() {
			return new ShareKafkaListenerContainerFactory<>(new DefaultShareConsumerFactory<>(Map.of(
					ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9", ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
					StringDeserializer.class, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class)));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class IdempotentShareListener {

		@Bean
		Listener listener() {
			return new Listener();
		}

		static class Listener {

			@KafkaListener(id = "share", topics = "orders", groupId = "share-group", containerFactory = "shareFactory",
					autoStartup = "false")
			@IdempotentListener(key = "#payload")
			public void onOrder(String payload) {
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainShareListener {

		@Bean
		Listener listener() {
			return new Listener();
		}

		static class Listener {

			@KafkaListener(id = "plain-share", topics = "orders", groupId = "share-group",
					containerFactory = "shareFactory", autoStartup = "false")
			public void onOrder(String payload) {
			}

		}

	}

}
