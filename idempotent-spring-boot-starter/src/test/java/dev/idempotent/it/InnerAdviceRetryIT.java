package dev.idempotent.it;

import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.claim.TransientClaimException;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A record listener's claim transaction retried inside the executor after a transient failure (a deadlock) runs the
 * method again through the whole advice chain inside the idempotent advice (an application's aspect, a
 * {@code @Transactional}), as the first attempt did. Before the fix the retry proceeded the invocation the first
 * attempt had proceeded, which calls the method directly: the application's advice ran once for two calls.
 */
@SpringBootTest(classes = { ItApplication.class, InnerAdviceRetryIT.Listeners.class },
		properties = { "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}",
				"spring.kafka.consumer.auto-offset-reset=earliest" })
@EmbeddedKafka(partitions = 1, topics = InnerAdviceRetryIT.TOPIC)
class InnerAdviceRetryIT {

	static final String TOPIC = "it.inner-advice";

	public static final String GROUP = UUID.randomUUID().toString().substring(0, 8) + "-inner-advice";

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	Listeners listeners;

	@Autowired
	ItLedger ledger;

	@Test
	void theRetriedAttemptGoesThroughTheAdviceInsideTheIdempotentOne() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, "order-1", "credit");
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(GROUP, "order-1") == 1);
			assertThat(this.listeners.calls).as("the deadlocked attempt and its retry").hasValue(2);
			assertThat(this.listeners.advised).as("the application's advice around each attempt").hasValue(2);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicInteger advised = new AtomicInteger();

		@Bean
		Listener innerAdviceListener(ItLedger ledger) {
			return new Listener(ledger, this.calls);
		}

		/** An application's advice on the listener bean, applied before the starter's (as an auto-proxy creator). */
		@Bean
		static BeanPostProcessor applicationAdvice(Listeners listeners) {
			return new OrderedAdvice(listeners.advised);
		}

	}

	static final class OrderedAdvice implements BeanPostProcessor, PriorityOrdered {

		private final AtomicInteger advised;

		OrderedAdvice(AtomicInteger advised) {
			this.advised = advised;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (!(bean instanceof Listener)) {
				return bean;
			}
			MethodInterceptor advice = (invocation) -> {
				this.advised.incrementAndGet();
				return invocation.proceed();
			};
			if (bean instanceof Advised proxy) {
				// proxied already (the starter's advisor comes first): the application's advice joins after it
				proxy.addAdvice(advice);
				return bean;
			}
			ProxyFactory factory = new ProxyFactory(bean);
			factory.setProxyTargetClass(true);
			factory.addAdvice(advice);
			return factory.getProxy();
		}

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

	}

	static class Listener {

		private final ItLedger ledger;

		private final AtomicInteger calls;

		Listener(ItLedger ledger, AtomicInteger calls) {
			this.ledger = ledger;
			this.calls = calls;
		}

		@KafkaListener(topics = TOPIC, groupId = "#{T(dev.idempotent.it.InnerAdviceRetryIT).GROUP}")
		@IdempotentListener
		public void on(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.ledger.credit(GROUP, key, payload);
			if (this.calls.incrementAndGet() == 1) {
				throw new TransientClaimException("Deadlock found when trying to get lock (simulated)",
						new SQLException("Deadlock found when trying to get lock", "40001", 1213));
			}
		}

	}

}
