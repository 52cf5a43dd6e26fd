package dev.idempotent.kafka.support;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

import static org.assertj.core.api.Assertions.assertThat;

class PolledRecordsTest {

	@Test
	void aPollIsTakenOnceAndAnEmptyPollUnbindsTheLastOne() {
		PolledRecords interceptor = new PolledRecords();
		ConsumerRecords<Object, Object> poll = poll();

		assertThat(interceptor.onConsume(poll)).as("records pass unchanged").isSameAs(poll);
		assertThat(PolledRecords.take()).isSameAs(poll);
		assertThat(PolledRecords.take()).as("taken once").isNull();

		interceptor.onConsume(poll);
		interceptor.onConsume(ConsumerRecords.empty());
		assertThat(PolledRecords.take()).isNull();
	}

	@Test
	void theInterceptorIsAddedAfterTheConfiguredOnesOnce() {
		assertThat(PolledRecords.addedTo(null)).containsExactly(PolledRecords.class);
		assertThat(PolledRecords.addedTo("com.acme.A, com.acme.B")).containsExactly("com.acme.A", "com.acme.B",
				PolledRecords.class);
		assertThat(PolledRecords.addedTo(RoundRobinAssignor.class)).containsExactly(RoundRobinAssignor.class,
				PolledRecords.class);
		assertThat(PolledRecords.addedTo(List.of("com.acme.A"))).containsExactly("com.acme.A", PolledRecords.class);
		assertThat(PolledRecords.addedTo(List.of(PolledRecords.class.getName()))).isNull();
		assertThat(PolledRecords.addedTo(PolledRecords.class)).isNull();
	}

	@Test
	void consumerFactoriesAndTheFactoriesOfContainerFactoriesGetTheInterceptor() {
		DefaultKafkaConsumerFactory<String, String> consumers = new DefaultKafkaConsumerFactory<>(
				Map.of(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, "com.acme.A"));
		DefaultKafkaConsumerFactory<String, String> inline = new DefaultKafkaConsumerFactory<>(Map.of());
		ConcurrentKafkaListenerContainerFactory<String, String> containers = new ConcurrentKafkaListenerContainerFactory<>();
		containers.setConsumerFactory(inline);
		PolledRecordsInstaller installer = new PolledRecordsInstaller();

		installer.postProcessAfterInitialization(consumers, "consumerFactory");
		installer.postProcessAfterInitialization(containers, "containerFactory");
		installer.postProcessAfterInitialization(consumers, "again");

		assertThat(consumers.getConfigurationProperties().get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG))
			.isEqualTo(List.of("com.acme.A", PolledRecords.class));
		assertThat(inline.getConfigurationProperties().get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG))
			.isEqualTo(List.of(PolledRecords.class));
	}

	private static ConsumerRecords<Object, Object> poll() {
		TopicPartition partition = new TopicPartition("t", 0);
		return new ConsumerRecords<>(Map.of(partition, List.of(new ConsumerRecord<>("t", 0, 0, "k", "v"))));
	}

}
