package dev.idempotent.sample;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Component;

/**
 * Publishes the demo stream: {@code events} distinct order-paid events, and about {@code resendRatio} of them
 * a second time with the same content, as a producer retry after a lost acknowledgment would.
 */
@Component
public class DemoStream {

	private final KafkaTemplate<String, String> template;

	DemoStream(KafkaTemplate<String, String> template) {
		this.template = template;
	}

	/**
	 * Publish the stream and wait until the broker acknowledged every record.
	 * @param topic the topic
	 * @param runId a prefix that makes this run's order ids unique
	 * @param events the number of distinct events
	 * @param resendRatio the share of events sent twice, 0 to 1
	 * @return what was published
	 * @throws Exception if a send fails or takes longer than a minute
	 */
	public Published publish(String topic, String runId, int events, double resendRatio) throws Exception {
		Random random = new Random(42);
		Instant start = Instant.now();
		List<CompletableFuture<SendResult<String, String>>> sends = new ArrayList<>(events + events / 10);
		List<OrderPaid> sent = new ArrayList<>(events);
		for (int i = 0; i < events; i++) {
			OrderPaid event = new OrderPaid("ORD-%s-%06d".formatted(runId, i), 1_000 + random.nextInt(99_000), "CNY",
					start.plusMillis(i));
			sends.add(send(topic, event));
			sent.add(event);
			if (random.nextDouble() < resendRatio) {
				sends.add(send(topic, sent.get(random.nextInt(sent.size()))));
			}
		}
		CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
		return new Published(events, sends.size());
	}

	private CompletableFuture<SendResult<String, String>> send(String topic, OrderPaid event) {
		return this.template.send(topic, event.orderId(), EventJson.write(event));
	}

	/**
	 * What the demo published.
	 *
	 * @param events distinct events
	 * @param records records sent, re-sends included
	 */
	public record Published(int events, int records) {
	}

}
