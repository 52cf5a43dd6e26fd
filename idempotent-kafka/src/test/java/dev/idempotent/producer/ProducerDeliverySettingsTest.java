package dev.idempotent.producer;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The effective acks and idempotence, derived as the Kafka client derives them. */
class ProducerDeliverySettingsTest {

	@Test
	void kafkasDefaultsAreSafe() {
		ProducerDeliverySettings settings = ProducerDeliverySettings.of(Map.of());
		assertThat(settings.acks()).isEqualTo("all");
		assertThat(settings.idempotence()).isTrue();
		assertThat(settings.canLoseAcknowledgedRecords()).isFalse();
	}

	@Test
	void minusOneIsAll() {
		assertThat(ProducerDeliverySettings.of(Map.of("acks", "-1")).canLoseAcknowledgedRecords()).isFalse();
	}

	@Test
	void settingsThatConflictWithIdempotenceTurnItOffWhenItIsNotSet() {
		assertThat(ProducerDeliverySettings.of(Map.of("retries", "0")).idempotenceSetting())
			.isEqualTo("enable.idempotence turned off by the Kafka client because of retries=0");
		assertThat(ProducerDeliverySettings.of(Map.of("max.in.flight.requests.per.connection", 6)).idempotence())
			.isFalse();
		assertThat(ProducerDeliverySettings.of(Map.of("acks", "0")).idempotence()).isFalse();
	}

	@Test
	void anExplicitSettingWins() {
		assertThat(ProducerDeliverySettings.of(Map.of("enable.idempotence", false)).idempotence()).isFalse();
		assertThat(ProducerDeliverySettings.of(Map.of("enable.idempotence", "true")).idempotence()).isTrue();
	}

}
