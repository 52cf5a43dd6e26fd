package dev.idempotent.sample;

import java.util.List;

import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The embedded defaults: an in-process single-node Kafka broker (KRaft) that the application connects to.
 * Not active in the {@code mysql} profile, which uses real bootstrap servers.
 */
@Configuration(proxyBeanMethods = false)
@Profile("!mysql")
class EmbeddedKafkaConfiguration {

	@Bean
	EmbeddedKafkaKraftBroker embeddedKafkaBroker() {
		return new EmbeddedKafkaKraftBroker(1, 3);
	}

	@Bean
	KafkaConnectionDetails embeddedKafkaConnectionDetails(EmbeddedKafkaKraftBroker broker) {
		return () -> List.of(broker.getBrokersAsString().split(","));
	}

}
