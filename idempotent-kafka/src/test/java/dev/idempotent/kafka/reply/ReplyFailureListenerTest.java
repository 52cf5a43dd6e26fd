package dev.idempotent.kafka.reply;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.listener.MessageListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The container calls the {@code onMessage} variant of the innermost listener's type (it looks through delegating
 * listeners): a wrapped listener that is a plain {@link MessageListener} (a container customizer's wrapper, say) is
 * called with the record alone. Before the fix the wrapper implemented only the three-argument variant, and the
 * others threw "Container should never call this" for every record.
 */
class ReplyFailureListenerTest {

	@Test
	void everyVariantTheContainerMayCallReachesTheWrappedListener() {
		List<String> delivered = new ArrayList<>();
		MessageListener<String, String> plain = (record) -> delivered.add(record.value());
		ReplyFailureListener<String, String> listener = new ReplyFailureListener<>(plain);
		ConsumerRecord<String, String> record = new ConsumerRecord<>("orders", 0, 7L, "k", "v");

		listener.onMessage(record);
		listener.onMessage(record, null, null);
		listener.onMessage(record, (org.springframework.kafka.support.Acknowledgment) null);

		assertThat(delivered).containsExactly("v", "v", "v");
	}

}
