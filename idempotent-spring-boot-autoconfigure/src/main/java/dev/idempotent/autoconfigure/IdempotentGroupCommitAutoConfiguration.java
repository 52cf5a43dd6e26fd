package dev.idempotent.autoconfigure;

import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.group.GroupCommitInstaller;
import dev.idempotent.kafka.method.ListenerMethods;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * Group commit of single-record {@code @IdempotentListener} listeners ({@link IdempotentGroupCommitProperties}): the
 * {@link GroupCommitInstaller}, which spring-kafka applies to every {@code @KafkaListener} annotation as it reads it.
 * It is created early (spring-kafka looks its enhancers up before the listener beans), so its settings are bound from
 * the environment and the beans it needs are looked up when the first container is created.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class)
@ConditionalOnBean(SqlDialect.class)
@EnableConfigurationProperties(IdempotentGroupCommitProperties.class)
public class IdempotentGroupCommitAutoConfiguration {

	@Bean(GroupCommitInstaller.BEAN_NAME)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE) // looked up while post-processors are registered: no WARN for that
	static GroupCommitInstaller idempotentGroupCommitInstaller(Environment environment,
			ObjectProvider<ListenerMethods> methods, ObjectProvider<TransactionalClaimExecutor> executor) {
		IdempotentGroupCommitProperties properties = Binder.get(environment)
			.bindOrCreate("idempotent.group-commit", IdempotentGroupCommitProperties.class);
		return new GroupCommitInstaller(properties.isEnabled(), properties.getMaxRecords(), properties.getTargetDuration(),
				SingletonSupplier.of(methods::getObject), SingletonSupplier.of(executor::getObject));
	}

}
