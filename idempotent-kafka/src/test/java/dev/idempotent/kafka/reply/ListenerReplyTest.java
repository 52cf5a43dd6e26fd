package dev.idempotent.kafka.reply;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The placeholder a hit returns to spring-kafka in place of a reply it did not compute: an instance of the method's
 * return type (the proxy casts the advice's value to it), whose content is never sent.
 */
class ListenerReplyTest {

	record Receipt(String orderId, int amount) {
	}

	@Test
	void aPlaceholderIsAnInstanceOfTheReturnType() {
		assertThat(ListenerReply.placeholder(String.class)).isEqualTo("");
		assertThat(ListenerReply.placeholder(CharSequence.class)).isEqualTo("");
		assertThat(ListenerReply.placeholder(Object.class)).isEqualTo("");
		assertThat(ListenerReply.placeholder(int.class)).isEqualTo(0);
		assertThat(ListenerReply.placeholder(boolean.class)).isEqualTo(false);
		assertThat(ListenerReply.placeholder(byte[].class)).isEqualTo(new byte[0]);
		assertThat(ListenerReply.placeholder(Receipt.class)).isInstanceOf(Receipt.class);
		assertThat(ListenerReply.placeholder(Integer.class)).isInstanceOf(Integer.class);
	}

	@Test
	void interfacesAndAbstractClassesHaveNoPlaceholder() {
		assertThat(ListenerReply.placeholderProblem(Receipt.class)).isNull();
		assertThat(ListenerReply.placeholderProblem(CharSequence.class)).isNull();
		assertThat(ListenerReply.placeholderProblem(Map.class)).contains("java.util.Map is an interface");
		assertThat(ListenerReply.placeholderProblem(Number.class)).contains("java.lang.Number is an interface or abstract");
		assertThat(ListenerReply.placeholderProblem(List.class)).isNotNull();
	}

}
