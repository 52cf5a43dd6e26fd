package dev.idempotent.autoconfigure;

import java.util.List;
import java.util.Map;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.reply.ReplyFailureListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Return values and replies at startup: a hit does not call the method, so a
 * {@code @SendTo} method whose reply cannot be stored with its claim is refused unless {@code idempotent.unstored-replies=warn}
 * (naming why), one whose reply is stored starts, and any other method returning a value gets one WARN.
 */
@ExtendWith(OutputCaptureExtension.class)
class ListenerRepliesTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:replies;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	/** With outputs captured, as an application with a producer has them. */
	private final ApplicationContextRunner capturing = this.runner
		.withConfiguration(AutoConfigurations.of(IdempotentOutputsAutoConfiguration.class))
		.withPropertyValues("idempotent.jdbc.initialize-schema=always");

	@Test
	void aMethodThatRepliesWithoutCapturedOutputsIsRefusedByDefault() {
		this.runner.withBean(Replying.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("@IdempotentListener method public java.lang.String " + Replying.class.getName()
					+ ".onRequest(java.lang.String) replies (@SendTo), but its reply cannot be stored with its claim"
					+ " (its outputs are not captured)")
			.hasMessageContaining("a redelivered request that is a hit gets no reply")
			.hasMessageContaining("idempotent.unstored-replies=warn"));
	}

	@Test
	void aMethodThatRepliesWithCapturedOutputsStartsAndHasItsReplyStored(CapturedOutput output) {
		this.capturing.withBean(Replying.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(Replying.class.getName() + ".onRequest(java.lang.String) replies"
					+ " (@SendTo): its reply is stored with its claim");
			assertThat(listenerOfTheOnlyContainer(context)).as("a failed reply fails its record")
				.isEqualTo("ReplyFailureListener");
		});
	}

	private static String listenerOfTheOnlyContainer(org.springframework.context.ApplicationContext context) {
		var containers = context.getBean(org.springframework.kafka.config.KafkaListenerEndpointRegistry.class)
			.getListenerContainers();
		assertThat(containers).hasSize(1);
		var container = (org.springframework.kafka.listener.AbstractMessageListenerContainer<?, ?>) containers.iterator()
			.next();
		return container.getContainerProperties().getMessageListener().getClass().getSimpleName();
	}

	@Test
	void aMethodThatOptedOutOfOutputsIsRefused() {
		this.capturing.withBean(ReplyingWithoutOutputs.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(ReplyingWithoutOutputs.class.getName() + ".onRequest(java.lang.String) replies"
					+ " (@SendTo), but its reply cannot be stored with its claim (its outputs are not captured)"));
	}

	@Test
	void aReplyWhoseTopicReadsTheResultOrWhoseMethodAcknowledgesIsRefused() {
		this.capturing.withBean(ReplyingToResultTopic.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("(its @SendTo expression reads the result, which a hit does not compute)"));
		this.capturing.withBean(ReplyingAndAcknowledging.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("(it takes an Acknowledgment, which may commit the offset before spring-kafka sent"
					+ " the reply)"));
	}

	@Test
	void aBatchListenerThatRepliesIsRefused() {
		this.capturing.withBean(ReplyingBatch.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("(it is a batch listener, whose reply answers no single request)"));
	}

	@Test
	void aReplyOfAnIterableOrAnInterfaceIsRefused() {
		this.capturing.withBean(ReplyingList.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("(it returns an Iterable, which spring-kafka may send as several replies)"));
		this.capturing.withBean(ReplyingMap.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("(its return type java.util.Map is an interface or abstract class)"));
	}

	@Test
	void aHandlerOfAClassThatRepliesIsRefused() {
		this.runner.withBean(ReplyingClass.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(ReplyingClass.class.getName() + ".onRequest(java.lang.String) replies (@SendTo)"));
		this.capturing.withBean(ReplyingClass.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(listenerOfTheOnlyContainer(context)).as("a failed reply fails its record")
				.isEqualTo("ReplyFailureListener");
		});
	}

	@Test
	void inShadowModeAReplyThatCannotBeStoredStartsWithAWarningOfTheRefusalToCome(CapturedOutput output) {
		this.capturing.withBean(ReturningMessage.class).withPropertyValues("idempotent.shadow=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(ReturningMessage.class.getName() + ".onEvent(java.lang.String) returns a"
					+ " Message")
				.contains("it is refused at startup once idempotent.shadow is off");
		});
	}

	@Test
	void inShadowModeAReplyThatCanBeStoredIsNotStoredYet(CapturedOutput output) {
		this.capturing.withBean(Replying.class).withPropertyValues("idempotent.shadow=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains(Replying.class.getName() + ".onRequest(java.lang.String) replies (@SendTo): in"
					+ " shadow mode every request calls it")
				.doesNotContain("its reply is stored with its claim, and");
		});
	}

	@Test
	void aMethodThatRepliesStartsWithOneWarningWhenAccepted(CapturedOutput output) {
		this.runner.withBean(Replying.class).withPropertyValues("idempotent.unstored-replies=warn").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(Replying.class.getName() + ".onRequest(java.lang.String) replies"
					+ " (@SendTo), but its reply cannot be stored with its claim");
			assertThat(output).contains("Accepted by idempotent.unstored-replies=warn");
		});
	}

	@Test
	void aMethodThatReturnsAValueWithoutSendToStartsWithOneWarning(CapturedOutput output) {
		this.runner.withBean(Returning.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce("@IdempotentListener method public java.lang.String "
					+ Returning.class.getName() + ".onEvent(java.lang.String) returns a value; a hit returns null");
		});
	}

	/**
	 * Spring Kafka publishes a declared {@code Message} return value through the container's reply template (Spring
	 * Boot sets the {@code KafkaTemplate}) on every delivery, with no {@code @SendTo}: before the fix this was only
	 * the WARN of any return value, and the application started.
	 */
	@Test
	void aMethodReturningAMessageIsRefusedLikeSendTo(CapturedOutput output) {
		this.runner.withBean(ReturningMessage.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining(ReturningMessage.class.getName() + ".onEvent(java.lang.String) returns a Message,"
					+ " which spring-kafka publishes")
			.hasMessageContaining("idempotent.unstored-replies=warn"));
		this.capturing.withBean(ReturningMessage.class).run((context) -> assertThat(context).getFailure()
			.hasMessageContaining("(it is declared to return a Message)"));
		this.runner.withBean(ReturningMessage.class).withPropertyValues("idempotent.unstored-replies=warn").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).contains(ReturningMessage.class.getName() + ".onEvent(java.lang.String) returns a Message")
				.contains("Accepted by idempotent.unstored-replies=warn");
		});
	}

	@Test
	void aVoidMethodGetsNoWarning(CapturedOutput output) {
		this.runner.withBean(VoidWithSendTo.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("VoidWithSendTo.onEvent(java.lang.String) replies")
				.doesNotContain("VoidWithSendTo.onEvent(java.lang.String) returns a value");
		});
	}

	static class Replying {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false")
		@SendTo("replies")
		@IdempotentListener(key = "#payload")
		public String onRequest(String payload) {
			return payload;
		}

	}

	@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false")
	@SendTo("replies")
	static class ReplyingClass {

		@KafkaHandler
		@IdempotentListener(key = "#payload")
		public String onRequest(String payload) {
			return payload;
		}

	}

	static class Returning {

		@KafkaListener(topics = "events", groupId = "returns", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public String onEvent(String payload) {
			return payload;
		}

	}

	static class VoidWithSendTo {

		@KafkaListener(topics = "events", groupId = "void", autoStartup = "false")
		@SendTo("replies")
		@IdempotentListener(key = "#payload")
		public void onEvent(String payload) {
		}

	}

	static class ReturningMessage {

		@KafkaListener(topics = "events", groupId = "messages", autoStartup = "false")
		@IdempotentListener(key = "#payload")
		public Message<String> onEvent(String payload) {
			return MessageBuilder.withPayload(payload).setHeader(KafkaHeaders.TOPIC, "out").build();
		}

	}

	static class ReplyingWithoutOutputs {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false")
		@SendTo("replies")
		@IdempotentListener(key = "#payload", outputs = false)
		public String onRequest(String payload) {
			return payload;
		}

	}

	static class ReplyingBatch {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false", batch = "true")
		@SendTo("replies")
		@IdempotentListener
		public String onRequests(List<String> payloads) {
			return String.join(",", payloads);
		}

	}

	static class ReplyingList {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false")
		@SendTo("replies")
		@IdempotentListener(key = "#payload")
		public List<String> onRequest(String payload) {
			return List.of(payload);
		}

	}

	static class ReplyingMap {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false")
		@SendTo("replies")
		@IdempotentListener(key = "#payload")
		public Map<String, String> onRequest(String payload) {
			return Map.of("payload", payload);
		}

	}

	static class ReplyingToResultTopic {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false")
		@SendTo("!{result.length() > 3 ? 'long-replies' : 'replies'}")
		@IdempotentListener(key = "#payload")
		public String onRequest(String payload) {
			return payload;
		}

	}

	static class ReplyingAndAcknowledging {

		@KafkaListener(topics = "requests", groupId = "replies", autoStartup = "false",
				properties = "enable.auto.commit=false")
		@SendTo("replies")
		@IdempotentListener(key = "#payload")
		public String onRequest(String payload, Acknowledgment acknowledgment) {
			acknowledgment.acknowledge();
			return payload;
		}

	}

}
