package dev.idempotent.it.stacks;

import java.sql.Connection;

import javax.sql.DataSource;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.Session;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;

/**
 * The JPA stack: Spring Data JPA and Hibernate with Spring Boot's {@code JpaTransactionManager}; the listener
 * saves a {@link StackPayment} through {@link StackPaymentRepository}. Entity and repository scanning are limited
 * to this package (the entities by the auto-configuration package, the package of this class).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
@EnableJpaRepositories(basePackageClasses = StackPaymentRepository.class)
public class JpaStackApplication {

	@Bean
	JpaPaymentWriter jpaPaymentWriter(StackPaymentRepository repository, EntityManagerFactory entityManagerFactory,
			DataSource dataSource) {
		return new JpaPaymentWriter(repository, entityManagerFactory, dataSource);
	}

	@Bean
	PaymentListener paymentListener(JpaPaymentWriter writer, Attempts attempts,
			@Value("${it.run}-${it.stack}") String group) {
		return new PaymentListener(writer, attempts, group);
	}

	/**
	 * Saves through the repository, and notes whether Hibernate's JDBC connection is the one Spring's JDBC code
	 * (the claim store) gets from the data source in the same transaction.
	 */
	public static class JpaPaymentWriter implements PaymentWriter {

		private final StackPaymentRepository repository;

		private final EntityManagerFactory entityManagerFactory;

		private final DataSource dataSource;

		private volatile @Nullable Boolean sharedConnection;

		JpaPaymentWriter(StackPaymentRepository repository, EntityManagerFactory entityManagerFactory,
				DataSource dataSource) {
			this.repository = repository;
			this.entityManagerFactory = entityManagerFactory;
			this.dataSource = dataSource;
		}

		@Override
		public void save(String group, String key, String reference) {
			this.repository.save(new StackPayment(group, key, reference));
			EntityManager entityManager = EntityManagerFactoryUtils
				.getTransactionalEntityManager(this.entityManagerFactory);
			Connection hibernate = entityManager.unwrap(Session.class).doReturningWork((connection) -> connection);
			Connection spring = DataSourceUtils.getConnection(this.dataSource);
			this.sharedConnection = (hibernate == spring);
		}

		/** Whether the last save saw one connection for Hibernate and for JDBC code, or null before any save. */
		public @Nullable Boolean sharedConnection() {
			return this.sharedConnection;
		}

	}

}
