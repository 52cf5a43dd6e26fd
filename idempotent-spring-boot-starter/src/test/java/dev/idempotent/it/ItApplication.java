package dev.idempotent.it;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The application of the end-to-end tests: auto-configuration, MariaDB from {@code application.yml}, a meter
 * registry and the {@link ItLedger}. Each test adds its listeners.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ItApplication {

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	ItLedger itLedger(JdbcTemplate jdbc) {
		return new ItLedger(jdbc);
	}

}
