package dev.idempotent.sample;

import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.support.converter.RecordMessageConverter;

/**
 * The sample ledger: runs the demo and exits, unless {@code ledger.keep-running=true}. The {@code serve} profile
 * keeps it running with a web server and the actuator endpoints {@code health}, {@code idempotency} and
 * {@code prometheus} (see {@code application-serve.yml}).
 */
@SpringBootApplication
@EnableConfigurationProperties(LedgerProperties.class)
public class LedgerApplication {

	/**
	 * Run the sample.
	 * @param args Spring Boot arguments, e.g. {@code --spring.profiles.active=mysql}
	 */
	public static void main(String[] args) {
		ConfigurableApplicationContext context = SpringApplication.run(LedgerApplication.class, args);
		if (!context.getBean(LedgerProperties.class).isKeepRunning()) {
			System.exit(SpringApplication.exit(context));
		}
	}

	@Bean
	RecordMessageConverter jsonMessageConverter() {
		return EventJson.messageConverter();
	}

	@Bean
	NewTopic orderPaidTopic(LedgerProperties properties) {
		return TopicBuilder.name(properties.getTopic()).partitions(3).replicas(1).build();
	}

	@Bean
	NewTopic orderPaidDeadLetterTopic(LedgerProperties properties) {
		return TopicBuilder.name(properties.getTopic() + ".DLT").partitions(3).replicas(1).build();
	}

}
