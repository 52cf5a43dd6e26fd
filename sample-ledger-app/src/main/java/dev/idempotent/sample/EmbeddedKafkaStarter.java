package dev.idempotent.sample;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The embedded defaults: unless the {@code mysql} profile is active (it connects to real brokers), an in-process
 * single-node Kafka broker (KRaft) starts before the application context, one per application, and the application
 * connects to it as to any broker, whatever {@code spring.kafka.bootstrap-servers} says elsewhere. The broker is then a bean of the context, {@code embeddedKafkaBroker}, registered before
 * any other so that it stops after every consumer and producer; a startup that fails before the context exists
 * stops it at once. Registered in {@code META-INF/spring.factories}.
 */
class EmbeddedKafkaStarter implements SmartApplicationListener {

	static final String BOOTSTRAP_SERVERS = "spring.kafka.bootstrap-servers";

	/** The profile that connects to real brokers. */
	static final String REAL_BROKERS_PROFILE = "mysql";

	private static final String BEAN_NAME = "embeddedKafkaBroker";

	/** The broker started and not yet handed to a context. */
	private @Nullable EmbeddedKafkaKraftBroker broker;

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationFailedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			start(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared) {
			handOver(prepared.getApplicationContext().getBeanFactory());
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void start(ConfigurableEnvironment environment) {
		// Spring AOT prepares the application at build time: no broker then
		if (environment.matchesProfiles(REAL_BROKERS_PROFILE) || Boolean.getBoolean("spring.aot.processing")) {
			return;
		}
		EmbeddedKafkaKraftBroker started = new EmbeddedKafkaKraftBroker(1, 3);
		started.afterPropertiesSet();
		this.broker = started;
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedKafka", Map.of(BOOTSTRAP_SERVERS, started.getBrokersAsString())));
	}

	/** The context destroys the broker when it closes, or when its refresh fails, after the beans that use it. */
	private void handOver(ConfigurableListableBeanFactory beanFactory) {
		EmbeddedKafkaKraftBroker started = this.broker;
		if (started == null) {
			return;
		}
		beanFactory.registerSingleton(BEAN_NAME, started);
		if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
			registry.registerDisposableBean(BEAN_NAME, started);
			this.broker = null;
		}
	}

	private void stop() {
		EmbeddedKafkaKraftBroker started = this.broker;
		this.broker = null;
		if (started != null) {
			started.destroy();
		}
	}

}
