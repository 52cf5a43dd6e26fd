package dev.idempotent.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.idempotent.audit.AuditDefinition;
import dev.idempotent.audit.Audits;
import dev.idempotent.audit.ClaimTableCheck;
import dev.idempotent.audit.JdbcAudits;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.metrics.AuditMeters;
import dev.idempotent.metrics.ClaimTableMeters;
import dev.idempotent.metrics.HitRatioMeters;
import dev.idempotent.metrics.HitRatioMonitor;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reconciliation and forensics: the declared audits ({@code idempotent.audits.*}), the check of the idempotency
 * table ({@code idempotent.table-check.*}), both run by an {@link IdempotentAuditScheduler} (audits only when they
 * are the starter's {@link JdbcAudits}), and the hit-ratio
 * monitor ({@code idempotent.hit-ratio.*}), a {@link dev.idempotent.metrics.ClaimListener} that the claim executors
 * compose with the others. With Micrometer, their gauges. Every bean steps aside for one the application defines.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class)
@ConditionalOnBean(SqlDialect.class)
@EnableConfigurationProperties({ IdempotentProperties.class, IdempotentForensicsProperties.class })
public class IdempotentForensicsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(Audits.class)
	JdbcAudits idempotentAudits(DataSource dataSource, IdempotentForensicsProperties forensics,
			IdempotentProperties properties) {
		List<AuditDefinition> definitions = new ArrayList<>();
		for (Map.Entry<String, IdempotentForensicsProperties.Audit> audit : forensics.getAudits().entrySet()) {
			IdempotentForensicsProperties.Audit settings = audit.getValue();
			definitions.add(new AuditDefinition(audit.getKey(), settings.getTable(), settings.getKeyColumn(),
					settings.getFilter(), settings.getInterval()));
		}
		return new JdbcAudits(dataSource, definitions, forensics.getAuditQueryTimeout(),
				properties.keyMasker(), Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "idempotent.table-check.enabled", matchIfMissing = true)
	ClaimTableCheck idempotentClaimTableCheck(DataSource dataSource, SqlDialect dialect,
			IdempotentForensicsProperties forensics, IdempotentProperties properties) {
		return new ClaimTableCheck(dataSource, new TableName(properties.getTableName()), dialect,
				forensics.getAuditQueryTimeout(), properties.keyMasker(), Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotentAuditScheduler idempotentAuditScheduler(ObjectProvider<JdbcAudits> jdbcAudits,
			ObjectProvider<ClaimTableCheck> tableCheck, IdempotentForensicsProperties forensics) {
		List<IdempotentAuditScheduler.Task> tasks = new ArrayList<>();
		JdbcAudits audits = jdbcAudits.getIfUnique();
		if (audits != null) {
			for (String name : audits.names()) {
				tasks.add(new IdempotentAuditScheduler.Task("Audit '" + name + "'", audits.definition(name).interval(),
						() -> audits.run(name)));
			}
		}
		ClaimTableCheck check = tableCheck.getIfUnique();
		if (check != null) {
			tasks.add(new IdempotentAuditScheduler.Task("Idempotency table check",
					forensics.getTableCheck().getInterval(), check::run));
		}
		return new IdempotentAuditScheduler(tasks);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "idempotent.hit-ratio.enabled", matchIfMissing = true)
	HitRatioMonitor idempotentHitRatioMonitor(IdempotentForensicsProperties forensics) {
		IdempotentForensicsProperties.HitRatio settings = forensics.getHitRatio();
		return new HitRatioMonitor(settings.getWindow(), settings.getThreshold(), settings.getMinSamples(),
				Clock.systemUTC());
	}

	/** Gauges of the audits, the table check and the hit ratio, bound to every registry by Spring Boot. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class Meters {

		@Bean
		@ConditionalOnMissingBean
		AuditMeters idempotentAuditMeters(Audits audits) {
			return new AuditMeters(audits);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnProperty(name = "idempotent.table-check.enabled", matchIfMissing = true)
		ClaimTableMeters idempotentClaimTableMeters(ClaimTableCheck check) {
			return new ClaimTableMeters(check);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnProperty(name = "idempotent.hit-ratio.enabled", matchIfMissing = true)
		HitRatioMeters idempotentHitRatioMeters(HitRatioMonitor monitor) {
			return new HitRatioMeters(monitor);
		}

	}

}
