package dev.idempotent.it;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.mysql.MySQLContainer;

import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * The single-record end-to-end tests against MySQL 8 and a Kafka broker in containers, connected through Spring
 * Boot's {@code @ServiceConnection} (which takes precedence over the embedded broker and the MariaDB settings).
 * Runs where a Docker engine exists (GitHub Actions); skipped with Testcontainers' reason elsewhere.
 */
@Testcontainers(disabledWithoutDocker = true)
class SingleRecordListenerContainersIT extends SingleRecordListenerIT {

	@Container
	@ServiceConnection
	static final MySQLContainer mysql = new MySQLContainer("mysql:8.4");

	@Container
	@ServiceConnection
	static final KafkaContainer kafka = new KafkaContainer("apache/kafka-native:4.1.0");

	static {
		// the listeners' topics: the container's broker creates them on first use, the DLTs included
		kafka.withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "true");
	}

}
