package dev.idempotent.it.stacks;

import java.util.UUID;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The MyBatis stack: mybatis-spring-boot-starter with Spring Boot's {@code DataSourceTransactionManager}; the
 * listener writes through the {@link StackPaymentMapper} interface.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class MyBatisStackApplication {

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

	@Bean
	PaymentListener paymentListener(StackPaymentMapper mapper, Attempts attempts,
			@Value("${it.run}-${it.stack}") String group) {
		PaymentWriter writer = (grp, key, reference) -> mapper.insert(UUID.randomUUID().toString(), grp, key,
				reference);
		return new PaymentListener(writer, attempts, group);
	}

}
