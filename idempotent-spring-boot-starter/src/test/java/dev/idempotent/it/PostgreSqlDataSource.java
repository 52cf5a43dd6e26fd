package dev.idempotent.it;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

import org.springframework.test.context.TestPropertySource;

/**
 * Runs a Spring test on the PostgreSQL test database (127.0.0.1:5432, or {@code IDEMPOTENT_POSTGRESQL_URL},
 * {@code _USER}, {@code _PASSWORD}) instead of the default MariaDB one, tagged {@code postgresql}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag("postgresql")
@TestPropertySource(properties = { "spring.datasource.url=${IDEMPOTENT_POSTGRESQL_URL:jdbc:postgresql://127.0.0.1:5432/test}",
		"spring.datasource.username=${IDEMPOTENT_POSTGRESQL_USER:postgres}",
		"spring.datasource.password=${IDEMPOTENT_POSTGRESQL_PASSWORD:}" })
public @interface PostgreSqlDataSource {

}
