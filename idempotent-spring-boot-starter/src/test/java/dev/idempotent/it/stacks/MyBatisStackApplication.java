package dev.idempotent.it.stacks;

import java.util.UUID;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The MyBatis stack: mybatis-spring-boot-starter with Spring Boot's {@code DataSourceTransactionManager}; the
 * listener writes through the {@link StackPaymentMapper} interface.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
public class MyBatisStackApplication {

	@Bean
	PaymentListener paymentListener(StackPaymentMapper mapper, Attempts attempts,
			@Value("${it.run}-${it.stack}") String group) {
		PaymentWriter writer = (grp, key, reference) -> mapper.insert(UUID.randomUUID().toString(), grp, key,
				reference);
		return new PaymentListener(writer, attempts, group);
	}

}
