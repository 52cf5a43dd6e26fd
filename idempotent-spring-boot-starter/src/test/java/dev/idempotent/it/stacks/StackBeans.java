package dev.idempotent.it.stacks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The beans every stack application imports: a meter registry (for the claim counters), the business table
 * {@link StackPayments} on the primary data source, and the listener's call counter {@link Attempts}. Each
 * application adds only what is particular to its stack: its data layer and its listener.
 */
@Configuration(proxyBeanMethods = false)
class StackBeans {

	@Bean
	SimpleMeterRegistry meterRegistry() {
		return new SimpleMeterRegistry();
	}

	@Bean
	StackPayments stackPayments(JdbcTemplate jdbc) {
		return new StackPayments(jdbc);
	}

	@Bean
	Attempts attempts() {
		return new Attempts();
	}

}
