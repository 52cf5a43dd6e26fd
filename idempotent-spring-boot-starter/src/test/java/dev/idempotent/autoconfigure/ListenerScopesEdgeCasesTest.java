package dev.idempotent.autoconfigure;

import dev.idempotent.kafka.IdempotentListener;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.retrytopic.RetryTopicConfiguration;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationBuilder;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shapes of the scope rule found by review: group ids that only the listener bean knows on both
 * methods, and {@code @RetryableTopic}, whose retry and dead-letter containers run the same method in other
 * consumer groups. No broker: the listeners never start.
 */
class ListenerScopesEdgeCasesTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:scope-edges;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	/**
	 * Before the fix both group ids were left to the check at delivery, where the first method to deliver owns the
	 * group: which one that is changes from run to run and from instance to instance, so each instance merged the two
	 * key spaces for the other (a record skipped as the other method's hit).
	 */
	@Test
	void groupIdsFromTheListenerBeanAreResolvedWithThatBean() {
		this.runner.withBean("created", Created.class, () -> new Created("orders"))
			.withBean("paid", Paid.class, () -> new Paid("orders"))
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(Created.class.getName() + ".onCreated(java.lang.String) (its consumer group id)")
				.hasMessageContaining(Paid.class.getName() + ".onPaid(java.lang.String) (its consumer group id)")
				.hasMessageContaining("resolve to the same scope 'orders'"));
		this.runner.withBean("created", Created.class, () -> new Created("orders-created"))
			.withBean("paid", Paid.class, () -> new Paid("orders-paid"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void twoBeansOfOneClassInTheirOwnGroupsStart() {
		this.runner.withBean("first", Paid.class, () -> new Paid("first"))
			.withBean("second", Paid.class, () -> new Paid("second"))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	/**
	 * Spring Kafka gives the retry and dead-letter containers of a {@code @RetryableTopic} listener the group id
	 * with a suffix ({@code orders-retry}, {@code orders-dlt}): an implicit scope would split one method's key space
	 * in three, so a duplicate of a record processed on a retry topic was processed again on the main topic.
	 */
	@Test
	void aRetryableTopicListenerNamingItsGroupNeedsAnExplicitScope() {
		this.runner.withBean(RetryableWithGroup.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(RetryableWithGroup.class.getName() + ".onOrder(java.lang.String)")
			.hasMessageContaining("@RetryableTopic")
			.hasMessageContaining("scope = \"orders\""));
		this.runner.withBean(RetryableWithId.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(RetryableWithId.class.getName() + ".onOrder(java.lang.String)")
			.hasMessageContaining("scope = \"order-listener\""));
		this.runner.withBean(RetryableWithScope.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aRetryableTopicListenerInTheFactorysGroupKeepsOneGroupAndStarts() {
		this.runner.withBean(RetryableInFactoryGroup.class)
			.withPropertyValues("spring.kafka.consumer.group-id=service")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aRetryTopicConfigurationBeanForTheListenersTopicCountsAsRetryTopics() {
		this.runner.withUserConfiguration(RetryForOrders.class).withBean(PlainWithGroup.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(PlainWithGroup.class.getName() + ".onOrder(java.lang.String)")
				.hasMessageContaining("has retry topics"));
		this.runner.withUserConfiguration(RetryForOrders.class).withBean(PlainOnOtherTopic.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	static class RetryForOrders {

		@Bean
		RetryTopicConfiguration ordersRetry(KafkaTemplate<Object, Object> template) {
			return RetryTopicConfigurationBuilder.newInstance()
				.includeTopic("orders")
				.doNotAutoCreateRetryTopics()
				.create(template);
		}

	}

	static class PlainWithGroup {

		@KafkaListener(topics = "orders", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onOrder(String payload) {
		}

	}

	static class PlainOnOtherTopic {

		@KafkaListener(topics = "payments", groupId = "payments", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onOrder(String payload) {
		}

	}

	static class Created {

		private final String group;

		Created(String group) {
			this.group = group;
		}

		public String getGroup() {
			return this.group;
		}

		@KafkaListener(topics = "orders-created", groupId = "#{__listener.group}", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

	}

	static class Paid {

		private final String group;

		Paid(String group) {
			this.group = group;
		}

		public String getGroup() {
			return this.group;
		}

		@KafkaListener(topics = "orders-paid", groupId = "#{__listener.group}", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class RetryableWithGroup {

		@RetryableTopic(autoCreateTopics = "false")
		@KafkaListener(topics = "orders", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onOrder(String payload) {
		}

	}

	static class RetryableWithId {

		@RetryableTopic(autoCreateTopics = "false")
		@KafkaListener(id = "order-listener", topics = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onOrder(String payload) {
		}

	}

	static class RetryableWithScope {

		@RetryableTopic(autoCreateTopics = "false")
		@KafkaListener(topics = "orders", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "orders")
		public void onOrder(String payload) {
		}

	}

	static class RetryableInFactoryGroup {

		@RetryableTopic(autoCreateTopics = "false")
		@KafkaListener(topics = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onOrder(String payload) {
		}

	}

}
