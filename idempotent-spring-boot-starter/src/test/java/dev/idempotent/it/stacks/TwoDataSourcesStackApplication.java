package dev.idempotent.it.stacks;

import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two DataSources, as services with a reporting or audit database have them: the business one (MariaDB or
 * PostgreSQL, from {@code spring.datasource.*}) is {@code @Primary} with its {@code @Primary} transaction
 * manager; an audit database (in-memory H2) has its own transaction manager, and the listener writes an audit
 * line there in a transaction of that manager.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StackBeans.class)
public class TwoDataSourcesStackApplication {

	static final String TOPIC = "stack.two-datasources";

	@Bean
	@Primary
	DataSource businessDataSource(Environment environment) {
		return DataSourceBuilder.create()
			.url(environment.getRequiredProperty("spring.datasource.url"))
			.username(environment.getProperty("spring.datasource.username"))
			.password(environment.getProperty("spring.datasource.password"))
			.build();
	}

	@Bean
	@Primary
	DataSourceTransactionManager transactionManager(DataSource businessDataSource) {
		return new DataSourceTransactionManager(businessDataSource);
	}

	@Bean
	DataSource auditDataSource() {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(
				"jdbc:h2:mem:audit-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
		new JdbcTemplate(dataSource).execute("CREATE TABLE audit_line (idem_key VARCHAR(200) NOT NULL)");
		return dataSource;
	}

	@Bean
	DataSourceTransactionManager auditTransactionManager(@Qualifier("auditDataSource") DataSource auditDataSource) {
		return new DataSourceTransactionManager(auditDataSource);
	}

	@Bean
	AuditingListener auditingListener(StackPayments payments, Attempts attempts,
			@Qualifier("auditDataSource") DataSource auditDataSource,
			@Qualifier("auditTransactionManager") DataSourceTransactionManager auditTransactionManager,
			@Value("${it.run}-twods") String group) {
		return new AuditingListener(payments, attempts, new JdbcTemplate(auditDataSource),
				new TransactionTemplate(auditTransactionManager), group);
	}

	/** Credits the payment in the business database and writes an audit line in the audit database. */
	public static class AuditingListener extends CreditingListener {

		private final JdbcTemplate audit;

		private final TransactionTemplate auditTransaction;

		AuditingListener(StackPayments payments, Attempts attempts, JdbcTemplate audit,
				TransactionTemplate auditTransaction, String group) {
			super(payments, attempts, group);
			this.audit = audit;
			this.auditTransaction = auditTransaction;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-twods")
		@IdempotentListener
		public void onPayment(String mode, @Header(IdempotencyHeaders.KEY) String key) {
			int call = call(key);
			credit(key);
			this.auditTransaction.executeWithoutResult(
					(status) -> this.audit.update("INSERT INTO audit_line (idem_key) VALUES (?)", key));
			failIfAsked(key, mode, call);
		}

		/** The audit lines of a key. */
		public long auditLines(String key) {
			Long count = this.audit.queryForObject("SELECT COUNT(*) FROM audit_line WHERE idem_key = ?", Long.class, key);
			return (count != null) ? count : 0;
		}

		/** Whether the audit database has a table of that name (H2 stores unquoted names in upper case). */
		public boolean auditHasTable(String name) {
			Long count = this.audit.queryForObject(
					"SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE UPPER(TABLE_NAME) = UPPER(?)", Long.class, name);
			return count != null && count > 0;
		}

	}

}
