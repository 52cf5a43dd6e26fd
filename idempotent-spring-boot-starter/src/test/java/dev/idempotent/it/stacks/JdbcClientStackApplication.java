package dev.idempotent.it.stacks;

import java.util.UUID;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The {@code JdbcClient} stack: Spring Boot's auto-configured {@link JdbcClient} and
 * {@code DataSourceTransactionManager}; the listener writes with a fluent {@code JdbcClient} statement.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
public class JdbcClientStackApplication {

	@Bean
	PaymentListener paymentListener(JdbcClient jdbcClient, Attempts attempts,
			@Value("${it.run}-${it.stack}") String group) {
		PaymentWriter writer = (grp, key, reference) -> jdbcClient
			.sql("INSERT INTO stack_payment (id, grp, idem_key, reference) VALUES (:id, :grp, :key, :reference)")
			.param("id", UUID.randomUUID().toString())
			.param("grp", grp)
			.param("key", key)
			.param("reference", reference)
			.update();
		return new PaymentListener(writer, attempts, group);
	}

}
