package dev.idempotent.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotent.audit.AuditResult;
import dev.idempotent.audit.Audits;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A small real {@link Audits}: one audit, {@value #NAME}, that finds order ids credited more than once in a ledger
 * table.
 */
final class LedgerDuplicatesAudit implements Audits {

	static final String NAME = "ledger-duplicates";

	private final JdbcTemplate jdbc;

	private final String ledgerTable;

	private final Map<String, AuditResult> latest = new ConcurrentHashMap<>();

	LedgerDuplicatesAudit(JdbcTemplate jdbc, String ledgerTable) {
		this.jdbc = jdbc;
		this.ledgerTable = ledgerTable;
	}

	@Override
	public Set<String> names() {
		return Set.of(NAME);
	}

	@Override
	public AuditResult run(String name) {
		check(name);
		Instant start = Instant.now();
		List<String> duplicated = this.jdbc.queryForList("SELECT order_id FROM " + this.ledgerTable
				+ " GROUP BY order_id HAVING COUNT(*) > 1 ORDER BY order_id", String.class);
		AuditResult result = new AuditResult(name, duplicated.size(), duplicated.stream().limit(5).toList(), start,
				Duration.between(start, Instant.now()));
		this.latest.put(name, result);
		return result;
	}

	@Override
	public Optional<AuditResult> lastResult(String name) {
		check(name);
		return Optional.ofNullable(this.latest.get(name));
	}

	private static void check(String name) {
		if (!NAME.equals(name)) {
			throw new IllegalArgumentException("No audit named " + name);
		}
	}

}
