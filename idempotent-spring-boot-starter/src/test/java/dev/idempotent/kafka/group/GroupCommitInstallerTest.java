package dev.idempotent.kafka.group;

import javax.sql.DataSource;

import dev.idempotent.autoconfigure.IdempotentAutoConfiguration;
import dev.idempotent.autoconfigure.IdempotentGroupCommitAutoConfiguration;
import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.ContainerCustomizer;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.CommonDelegatingErrorHandler;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.CommonMixedErrorHandler;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which listener containers {@link GroupCommitInstaller} gives group commit, and which shapes it refuses at startup,
 * read from the containers Spring Kafka creates (never started here).
 */
class GroupCommitInstallerTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class, IdempotentGroupCommitAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:group-commit;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9", "idempotent.jdbc.initialize-schema=always");

	@Test
	void aListenerThatAsksForGroupCommitGetsItsContainerTurnedIntoAGroupCommitOne() {
		this.runner.withUserConfiguration(Enabled.class)
			.withPropertyValues("spring.kafka.listener.ack-mode=record")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				AbstractMessageListenerContainer<?, ?> container = container(context.getBean(
						KafkaListenerEndpointRegistry.class), "enabled");
				assertThat(container.getContainerProperties().getMessageListener())
					.isInstanceOf(GroupCommitListener.class);
				assertThat(container.getContainerProperties().getAckMode()).as("a batch container refuses RECORD")
					.isEqualTo(AckMode.BATCH);
			});
	}

	@Test
	void listenersRunRecordByRecordUnlessTheyAskOrTheDefaultIsOn() {
		this.runner.withUserConfiguration(Defaulted.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(listenerOf(context.getBean(KafkaListenerEndpointRegistry.class), "defaulted"))
				.isNotInstanceOf(GroupCommitListener.class);
		});
	}

	@Test
	void theDefaultTurnsGroupCommitOnForListenersThatDoNotSayOtherwiseAndItCanServe() {
		this.runner.withUserConfiguration(Defaulted.class, Disabled.class, Acknowledging.class)
			.withPropertyValues("idempotent.group-commit.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				KafkaListenerEndpointRegistry registry = context.getBean(KafkaListenerEndpointRegistry.class);
				assertThat(listenerOf(registry, "defaulted")).isInstanceOf(GroupCommitListener.class);
				assertThat(listenerOf(registry, "disabled")).isNotInstanceOf(GroupCommitListener.class);
				assertThat(listenerOf(registry, "acknowledging")).as("it cannot serve a listener that acknowledges")
					.isNotInstanceOf(GroupCommitListener.class);
			});
	}

	/**
	 * spring-kafka wraps a retry-topic listener only after the container post-processors ran, so the installer must ask
	 * whether the method has retry topics. Before the fix group commit was installed and spring-kafka then failed the
	 * startup ("GroupCommitListener is not assignable from MessageListener").
	 */
	@Test
	void aListenerWithRetryTopicsRunsRecordByRecordUnderTheDefaultAndIsRefusedWhenItAsks() {
		this.runner.withUserConfiguration(Retrying.class)
			.withPropertyValues("idempotent.group-commit.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(listenerOf(context.getBean(KafkaListenerEndpointRegistry.class), "retrying"))
					.isNotInstanceOf(GroupCommitListener.class);
			});
		this.runner.withUserConfiguration(RetryingEnabled.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: it uses retry topics"));
	}

	@Test
	void aListenerThatAsksForGroupCommitButCannotHaveItStopsTheApplication() {
		this.runner.withUserConfiguration(EnabledAcknowledging.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: it takes an Acknowledgment"));
	}

	@Test
	void aContainerTransactionManagerSetWithTheDeprecatedSetterIsRefused() {
		// spring-kafka runs a batch in any container transaction manager and seeks the whole poll back after a rollback
		this.runner.withUserConfiguration(Enabled.class, ContainerTransaction.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: its container runs the listener in a transaction of its"
						+ " own"));
	}

	@Test
	void compositeErrorHandlersServeGroupCommitWhenEveryHandlerTheyHandBatchesToDoes() {
		this.runner.withUserConfiguration(Enabled.class)
			.withBean(CommonErrorHandler.class, () -> new CommonMixedErrorHandler(new RecordOnlyErrorHandler(),
					new DefaultErrorHandler()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(listenerOf(context.getBean(KafkaListenerEndpointRegistry.class), "enabled"))
					.isInstanceOf(GroupCommitListener.class);
			});
		// a mixed handler whose record handler does not seek does not seek either: the container would commit the poll
		this.runner.withUserConfiguration(Enabled.class)
			.withBean(CommonErrorHandler.class, () -> new CommonMixedErrorHandler(new CommonLoggingErrorHandler(),
					new DefaultErrorHandler()))
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: its container's error handler"));
		this.runner.withUserConfiguration(Enabled.class)
			.withBean(CommonErrorHandler.class, () -> new CommonDelegatingErrorHandler(new DefaultErrorHandler()))
			.run((context) -> assertThat(context).hasNotFailed());
		this.runner.withUserConfiguration(Enabled.class).withBean(CommonErrorHandler.class, () -> {
			CommonDelegatingErrorHandler delegating = new CommonDelegatingErrorHandler(new DefaultErrorHandler());
			delegating.addDelegate(IllegalStateException.class, new RecordOnlyErrorHandler());
			return delegating;
		})
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: its container's error handler")
				.hasMessageContaining(CommonDelegatingErrorHandler.class.getName()));
	}

	@Test
	void aContainerThatAddsTheDeliveryAttemptHeaderIsRefused() {
		this.runner.withUserConfiguration(Enabled.class, DeliveryAttemptHeader.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: its container adds the delivery attempt header"));
	}

	@Test
	void aMethodThatReturnsAValueIsRefusedWhenItAsksAndRunsRecordByRecordUnderTheDefault() {
		// with idempotent.unstored-replies=warn a returned Message is accepted record by record; a group would lose every one
		this.runner.withUserConfiguration(EnabledReturning.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("cannot use group commit: it returns a value"));
		this.runner.withUserConfiguration(DefaultReturning.class)
			.withPropertyValues("idempotent.group-commit.enabled=true", "idempotent.unstored-replies=warn")
			.run((context) -> assertThat(listenerOf(context.getBean(KafkaListenerEndpointRegistry.class),
					"default-returning"))
				.isNotInstanceOf(GroupCommitListener.class));
	}

	@Test
	void badGroupBoundsStopTheApplication() {
		this.runner.withUserConfiguration(Enabled.class)
			.withPropertyValues("idempotent.group-commit.max-records=0")
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.hasMessageContaining("max-records must be 1 or more"));
	}

	private static Object listenerOf(KafkaListenerEndpointRegistry registry, String id) {
		return container(registry, id).getContainerProperties().getMessageListener();
	}

	private static AbstractMessageListenerContainer<?, ?> container(KafkaListenerEndpointRegistry registry, String id) {
		return (AbstractMessageListenerContainer<?, ?>) registry.getListenerContainer(id);
	}

	@Configuration(proxyBeanMethods = false)
	static class Enabled {

		@Bean
		EnabledListener enabledListener() {
			return new EnabledListener();
		}

	}

	static class EnabledListener {

		@KafkaListener(id = "enabled", topics = "enabled", groupId = "enabled")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void on(ConsumerRecord<String, String> record) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Defaulted {

		@Bean
		DefaultedListener defaultedListener() {
			return new DefaultedListener();
		}

	}

	static class DefaultedListener {

		@KafkaListener(id = "defaulted", topics = "defaulted", groupId = "defaulted")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Disabled {

		@Bean
		DisabledListener disabledListener() {
			return new DisabledListener();
		}

	}

	static class DisabledListener {

		@KafkaListener(id = "disabled", topics = "disabled", groupId = "disabled")
		@IdempotentListener(groupCommit = GroupCommit.DISABLED)
		public void on(ConsumerRecord<String, String> record) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Acknowledging {

		@Bean
		AcknowledgingListener acknowledgingListener() {
			return new AcknowledgingListener();
		}

	}

	static class AcknowledgingListener {

		@KafkaListener(id = "acknowledging", topics = "acknowledging", groupId = "acknowledging")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record, Acknowledgment acknowledgment) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EnabledAcknowledging {

		@Bean
		EnabledAcknowledgingListener enabledAcknowledgingListener() {
			return new EnabledAcknowledgingListener();
		}

	}

	static class EnabledAcknowledgingListener {

		@KafkaListener(id = "enabled-acknowledging", topics = "enabled-acknowledging", groupId = "enabled-acknowledging")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void on(ConsumerRecord<String, String> record, Acknowledgment acknowledgment) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ContainerTransaction {

		@Bean
		@SuppressWarnings("removal")
		ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> containerTransaction(
				DataSource dataSource) {
			return (container) -> container.getContainerProperties()
				.setTransactionManager(new DataSourceTransactionManager(dataSource));
		}

	}

	/** An application's handler that handles records only: a failed batch is handled by the interface's default. */
	static class RecordOnlyErrorHandler implements CommonErrorHandler {

		@Override
		public boolean seeksAfterHandling() {
			return true; // as DefaultErrorHandler's, which CommonDelegatingErrorHandler requires of its delegates
		}

		@Override
		public boolean handleOne(Exception thrownException, ConsumerRecord<?, ?> record, Consumer<?, ?> consumer,
				MessageListenerContainer container) {
			return true;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DeliveryAttemptHeader {

		@Bean
		ContainerCustomizer<Object, Object, ConcurrentMessageListenerContainer<Object, Object>> deliveryAttemptHeader() {
			return (container) -> container.getContainerProperties().setDeliveryAttemptHeader(true);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EnabledReturning {

		@Bean
		EnabledReturningListener enabledReturningListener() {
			return new EnabledReturningListener();
		}

	}

	static class EnabledReturningListener {

		@KafkaListener(id = "enabled-returning", topics = "enabled-returning", groupId = "enabled-returning")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public Message<String> on(ConsumerRecord<String, String> record) {
			return MessageBuilder.withPayload("done").setHeader(KafkaHeaders.TOPIC, "replies").build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DefaultReturning {

		@Bean
		DefaultReturningListener defaultReturningListener() {
			return new DefaultReturningListener();
		}

	}

	static class DefaultReturningListener {

		@KafkaListener(id = "default-returning", topics = "default-returning", groupId = "default-returning")
		@IdempotentListener
		public Message<String> on(ConsumerRecord<String, String> record) {
			return MessageBuilder.withPayload("done").setHeader(KafkaHeaders.TOPIC, "replies").build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Retrying {

		@Bean
		RetryingListener retryingListener() {
			return new RetryingListener();
		}

	}

	static class RetryingListener {

		@KafkaListener(id = "retrying", topics = "retrying", groupId = "retrying")
		@RetryableTopic(autoCreateTopics = "false")
		@IdempotentListener(scope = "retrying")
		public void on(ConsumerRecord<String, String> record) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RetryingEnabled {

		@Bean
		RetryingEnabledListener retryingEnabledListener() {
			return new RetryingEnabledListener();
		}

	}

	static class RetryingEnabledListener {

		@KafkaListener(id = "retrying-enabled", topics = "retrying-enabled", groupId = "retrying-enabled")
		@RetryableTopic(autoCreateTopics = "false")
		@IdempotentListener(scope = "retrying-enabled", groupCommit = GroupCommit.ENABLED)
		public void on(ConsumerRecord<String, String> record) {
		}

	}

}
