package dev.idempotent.benchmarks;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/** What every variant's application shares; each run adds one variant's listener configuration. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BenchApp {

	/** The timer of the duplicate check of the variants that are not this library's. */
	public static final String CHECK = "bench.check";

	@Bean
	static StatementCounter statementCounter() {
		return new StatementCounter();
	}

	@Bean
	Deliveries deliveries() {
		return new Deliveries();
	}

	@Bean
	BenchLedger benchLedger(JdbcTemplate jdbc, @Value("${bench.group}") String run) {
		return new BenchLedger(jdbc, run);
	}

	@Bean
	MeterFilter percentiles() {
		return new MeterFilter() {
			@Override
			public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
				if (id.getType() == Meter.Type.TIMER) {
					return DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(config);
				}
				return config;
			}
		};
	}

	@Bean
	Timer checkTimer(MeterRegistry registry) {
		return Timer.builder(CHECK).register(registry);
	}

}
