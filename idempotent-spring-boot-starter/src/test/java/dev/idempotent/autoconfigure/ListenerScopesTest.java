package dev.idempotent.autoconfigure;

import dev.idempotent.kafka.IdempotentListener;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scope rule at startup: two methods that resolve to one scope, at least one of them
 * implicitly from its consumer group id, stop the application; the group id is resolved as Spring Kafka resolves
 * it. No broker: the listeners never start.
 */
class ListenerScopesTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:scopes;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	@Test
	void twoMethodsWithTheSameGroupIdAttributeAreRefused() {
		this.runner.withBean(SameGroupId.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("@IdempotentListener methods public void " + SameGroupId.class.getName()
					+ ".onCreated(java.lang.String) (its consumer group id), public void " + SameGroupId.class.getName()
					+ ".onPaid(java.lang.String) (its consumer group id) resolve to the same scope 'orders'")
			.hasMessageContaining("would be skipped as a hit")
			.hasMessageContaining("Give each method its own explicit @IdempotentListener(scope = \"...\")")
			.hasMessageContaining("give the method that used them scope = \"orders\""));
	}

	@Test
	void differentGroupsAndExplicitScopesStart() {
		this.runner.withBean(DifferentGroups.class).run((context) -> assertThat(context).hasNotFailed());
		this.runner.withBean(ExplicitScopes.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void methodsThatAllDeclareOneScopeShareItOnPurpose() {
		this.runner.withBean(ExplicitShared.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anExplicitScopeEqualToAnotherMethodsGroupIdIsRefused() {
		this.runner.withBean(ExplicitMeetsImplicit.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(".onCreated(java.lang.String) (scope = \"orders\")")
			.hasMessageContaining(".onPaid(java.lang.String) (its consumer group id)"));
	}

	@Test
	void theListenerIdIsTheGroupUnlessIdIsGroupIsFalse() {
		this.runner.withBean(IdAsGroup.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("resolve to the same scope 'orders'"));
		this.runner.withBean(IdNotGroup.class)
			.withPropertyValues("spring.kafka.consumer.group-id=service")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("resolve to the same scope 'service'"));
	}

	@Test
	void theContainerFactorysGroupIdIsTheScopeOfListenersWithoutOne() {
		this.runner.withBean(FactoryGroup.class)
			.withPropertyValues("spring.kafka.consumer.group-id=service")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(FactoryGroup.class.getName() + ".onCreated(java.lang.String) (its consumer group id)")
				.hasMessageContaining("resolve to the same scope 'service'"));
		this.runner.withBean(FactoryGroupWithExplicitScopes.class)
			.withPropertyValues("spring.kafka.consumer.group-id=service")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void placeholdersAndExpressionsInTheGroupIdAreResolved() {
		this.runner.withBean(PlaceholderAndExpression.class)
			.withPropertyValues("it.group=orders")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("resolve to the same scope 'orders'"));
		this.runner.withBean(PlaceholderAndExpression.class)
			.withPropertyValues("it.group=other")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void handlersOfAClassLevelListenerShareItsGroup() {
		this.runner.withBean(TwoHandlers.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(TwoHandlers.class.getName() + ".onCreated(java.lang.String)")
			.hasMessageContaining(TwoHandlers.class.getName() + ".onPaid(java.lang.Integer)")
			.hasMessageContaining("resolve to the same scope 'orders'"));
		this.runner.withBean(OneHandler.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void everyRepeatedListenerOfAMethodCounts() {
		this.runner.withBean(Repeated.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(".onBoth(java.lang.String) (its consumer group id)")
			.hasMessageContaining(".onPaid(java.lang.String) (its consumer group id)")
			.hasMessageContaining("resolve to the same scope 'paid'")
			.hasMessageNotContaining("'created'"));
		this.runner.withBean(RepeatedSameGroup.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aGroupIdFromTheListenerBeanIsResolvedWithTheBean() {
		this.runner.withBean(GroupFromBean.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(".onPaid(java.lang.String) (its consumer group id)")
			.hasMessageContaining("resolve to the same scope 'orders'"));
	}

	static class SameGroupId {

		@KafkaListener(topics = "orders-created", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class DifferentGroups {

		@KafkaListener(topics = "orders-created", groupId = "created", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "paid", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class ExplicitScopes {

		@KafkaListener(topics = "orders-created", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "orders")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "orders-paid")
		public void onPaid(String payload) {
		}

	}

	static class ExplicitShared {

		@KafkaListener(topics = "orders-created", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "orders")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "orders")
		public void onPaid(String payload) {
		}

	}

	static class ExplicitMeetsImplicit {

		@KafkaListener(topics = "orders-created", groupId = "created", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "orders")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class IdAsGroup {

		@KafkaListener(id = "orders", topics = "orders-created", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class IdNotGroup {

		@KafkaListener(id = "created", idIsGroup = false, topics = "orders-created", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(id = "paid", idIsGroup = false, topics = "orders-paid", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class FactoryGroup {

		@KafkaListener(topics = "orders-created", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class FactoryGroupWithExplicitScopes {

		@KafkaListener(topics = "orders-created", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "service")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", autoStartup = "false")
		@IdempotentListener(key = "#payload", scope = "service-paid")
		public void onPaid(String payload) {
		}

	}

	static class PlaceholderAndExpression {

		@KafkaListener(topics = "orders-created", groupId = "${it.group}", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "#{'ord' + 'ers'}", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	@KafkaListener(topics = "orders", groupId = "orders", autoStartup = "false")
	static class TwoHandlers {

		@KafkaHandler
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaHandler
		@IdempotentListener(key = "'paid-' + #payload")
		public void onPaid(Integer payload) {
		}

	}

	@KafkaListener(topics = "orders", groupId = "orders", autoStartup = "false")
	static class OneHandler {

		@KafkaHandler
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaHandler
		public void onPaid(Integer payload) {
		}

	}

	static class Repeated {

		@KafkaListener(topics = "orders-created", groupId = "created", autoStartup = "false")
		@KafkaListener(topics = "orders-paid", groupId = "paid", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onBoth(String payload) {
		}

		@KafkaListener(topics = "orders-paid-2", groupId = "paid", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

	static class RepeatedSameGroup {

		@KafkaListener(topics = "orders-created", groupId = "orders", autoStartup = "false")
		@KafkaListener(topics = "orders-paid", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onBoth(String payload) {
		}

	}

	static class GroupFromBean {

		public String getGroup() {
			return "orders";
		}

		@KafkaListener(topics = "orders-created", groupId = "orders", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onCreated(String payload) {
		}

		@KafkaListener(topics = "orders-paid", groupId = "#{__listener.group}", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public void onPaid(String payload) {
		}

	}

}
