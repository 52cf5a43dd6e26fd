package dev.idempotent.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that {@link IdempotentSchemaInitialization} initializes the database, so that it runs after
 * the initializers of lower order (Flyway, Liquibase, {@code spring.sql.init} scripts) and before the beans that
 * depend on database initialization.
 *
 * @since 0.1.0
 */
public class IdempotentSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	/** After Boot's own detectors, whose highest order is {@code Ordered.LOWEST_PRECEDENCE - 100}. */
	static final int ORDER = Ordered.LOWEST_PRECEDENCE - 50;

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(IdempotentSchemaInitialization.class);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
